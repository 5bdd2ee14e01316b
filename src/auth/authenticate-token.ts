import type { CatalogSnapshot } from '../catalog/catalog.js';
import type { TokenRecord, UserRecord } from '../catalog/catalog-records.js';
import type { GatewayErrorCode } from '../errors/gateway-error.js';
import { digestPresentedKey } from './digest-presented-key.js';

export interface AuthenticatedCaller {
  token: TokenRecord;
  user: UserRecord;
  /** The group whose channels and ratio apply: the token's, else the user's. */
  group: string;
  /** Channel pinned by an admin with `sk-<key>-<channelId>`. */
  pinnedChannelId: number | undefined;
  /** The hash of the key presented; undefined for a console session's playground token (the session is the credential). */
  keyHash: string | undefined;
  /** The catalog snapshot the caller was read from: admission reads it again only when the catalog has changed since. */
  snapshot: CatalogSnapshot;
}

export type AuthenticationResult =
  | { ok: true; caller: AuthenticatedCaller }
  | { ok: false; code: GatewayErrorCode; message: string };

export interface AuthenticateOptions {
  /** Read-only routes (token usage) answer for expired or exhausted tokens too. */
  readOnly?: boolean;
}

/** Pure: checks a presented key against the in-memory catalog. `nowSeconds` is unix seconds. */
export function authenticateToken(
  snapshot: CatalogSnapshot,
  presentedKey: string | undefined,
  nowSeconds: number,
  options: AuthenticateOptions = {},
): AuthenticationResult {
  if (presentedKey === undefined || presentedKey === '') {
    return { ok: false, code: 'missing_api_key', message: 'No API key provided. Send it as `Authorization: Bearer <key>`.' };
  }
  const digest = digestPresentedKey(presentedKey);
  const token = digest === null ? undefined : snapshot.tokensByHash.get(digest.hash);
  if (digest === null || token === undefined) return unknownKey;
  return checkTokenAccess(snapshot, token, digest.hash, digest.channelId, nowSeconds, options);
}

/**
 * Pure: the caller as the current catalog has it, checked as {@link authenticateToken} checked it — the
 * key (by its hash: a key deleted or regenerated since is unknown), the token, its user, expiry and group —
 * or the refusal authentication would now give. For a caller authenticated before its body arrived: a change
 * made through the admin API meanwhile applies to the request, its group and model limits included.
 */
export function reauthenticateCaller(snapshot: CatalogSnapshot, caller: AuthenticatedCaller, nowSeconds: number): AuthenticationResult {
  const token = caller.keyHash === undefined ? snapshot.tokensById.get(caller.token.id) : snapshot.tokensByHash.get(caller.keyHash);
  if (token === undefined) return unknownKey;
  return checkTokenAccess(snapshot, token, caller.keyHash, caller.pinnedChannelId, nowSeconds, {});
}

const unknownKey: AuthenticationResult = { ok: false, code: 'invalid_api_key', message: 'Incorrect API key provided.' };

function checkTokenAccess(
  snapshot: CatalogSnapshot,
  token: TokenRecord,
  keyHash: string | undefined,
  pinnedChannelId: number | undefined,
  nowSeconds: number,
  options: AuthenticateOptions,
): AuthenticationResult {
  if (!token.enabled) return { ok: false, code: 'token_disabled', message: 'This API key has been disabled.' };
  const user = snapshot.usersById.get(token.userId);
  if (user === undefined) return unknownKey;
  if (!user.enabled) return { ok: false, code: 'user_disabled', message: 'The user of this API key has been disabled.' };
  if (!options.readOnly && token.expiresAt !== 0 && token.expiresAt <= nowSeconds) {
    return { ok: false, code: 'token_expired', message: 'This API key has expired.' };
  }
  const group = token.group ?? user.group;
  if (!snapshot.groupRatios.has(group)) {
    return { ok: false, code: 'group_not_allowed', message: `Group "${group}" does not exist or has been removed.` };
  }
  // Only root's keys may name any group. An admin's own key is bound to its own group as a user's is:
  // it spends a wallet the admin cannot top up (nor move to another group), so a cheaper group's ratio
  // would be a top-up by another name; new-api holds every token group to the owner's usable groups.
  if (group !== user.group && user.role !== 'root') {
    return { ok: false, code: 'group_not_allowed', message: `This API key may not use group "${group}".` };
  }
  if (pinnedChannelId !== undefined && user.role === 'user') {
    return { ok: false, code: 'channel_pin_forbidden', message: 'Only administrators may pin a request to a channel.' };
  }
  return { ok: true, caller: { token, user, group, pinnedChannelId, keyHash, snapshot } };
}
