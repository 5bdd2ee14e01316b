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
  if (digest === null || token === undefined) {
    return { ok: false, code: 'invalid_api_key', message: 'Incorrect API key provided.' };
  }
  if (!token.enabled) return { ok: false, code: 'token_disabled', message: 'This API key has been disabled.' };
  const user = snapshot.usersById.get(token.userId);
  if (user === undefined) return { ok: false, code: 'invalid_api_key', message: 'Incorrect API key provided.' };
  if (!user.enabled) return { ok: false, code: 'user_disabled', message: 'The user of this API key has been disabled.' };
  if (!options.readOnly && token.expiresAt !== 0 && token.expiresAt <= nowSeconds) {
    return { ok: false, code: 'token_expired', message: 'This API key has expired.' };
  }
  const group = token.group ?? user.group;
  if (!snapshot.groupRatios.has(group)) {
    return { ok: false, code: 'group_not_allowed', message: `Group "${group}" does not exist or has been removed.` };
  }
  if (group !== user.group && user.role === 'user') {
    return { ok: false, code: 'group_not_allowed', message: `This API key may not use group "${group}".` };
  }
  if (digest.channelId !== undefined && user.role === 'user') {
    return { ok: false, code: 'channel_pin_forbidden', message: 'Only administrators may pin a request to a channel.' };
  }
  return { ok: true, caller: { token, user, group, pinnedChannelId: digest.channelId } };
}
