import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../catalog/catalog.js';
import type { TokenRecord, UserRecord, UserRole } from '../catalog/catalog-records.js';
import { defaultSiteSettings } from '../catalog/site-settings.js';
import { hashApiKey } from '../security/api-keys.js';
import { authenticateToken, reauthenticateCaller, type AuthenticatedCaller, type AuthenticationResult } from './authenticate-token.js';
import { tokenAllowsModel } from './authorize-model.js';

const nowSeconds = 1_750_000_000;

function keyOf(seed: string): string {
  return `sk-${seed.padEnd(48, '0')}`;
}

function user(id: number, role: UserRole, overrides: Partial<UserRecord> = {}): UserRecord {
  return { id, username: `user${id}`, role, group: 'default', quota: 0, unlimitedQuota: true, usedQuota: 0, requestCount: 0, enabled: true, sessionVersion: 0, createdAt: 0, ...overrides };
}

function token(id: number, userId: number, overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    id,
    userId,
    name: `token${id}`,
    keyPrefix: 'sk-…',
    group: null,
    remainQuota: 0,
    usedQuota: 0,
    unlimitedQuota: true,
    modelLimits: null,
    expiresAt: 0,
    enabled: true,
    rateLimit: {},
    purpose: 'api',
    requestCount: 0,
    createdAt: 0,
    ...overrides,
  };
}

const users = [user(1, 'user'), user(2, 'user', { enabled: false }), user(3, 'admin'), user(4, 'root'), user(5, 'user', { group: 'vip' })];

/** Each key maps to one token; the seed names the case it exercises. */
const tokens: [string, TokenRecord][] = [
  [keyOf('valid'), token(10, 1, { modelLimits: ['gpt-4o-mini'] })],
  [keyOf('disabledtoken'), token(11, 1, { enabled: false })],
  [keyOf('disableduser'), token(12, 2)],
  [keyOf('expired'), token(13, 1, { expiresAt: nowSeconds - 1 })],
  [keyOf('expiresnow'), token(14, 1, { expiresAt: nowSeconds })],
  [keyOf('future'), token(15, 1, { expiresAt: nowSeconds + 60 })],
  [keyOf('othergroup'), token(16, 1, { group: 'vip' })],
  [keyOf('removedgroup'), token(17, 5)],
  [keyOf('unknowngroup'), token(18, 1, { group: 'nope' })],
  [keyOf('admin'), token(19, 3)],
  [keyOf('root'), token(20, 4, { group: 'vip' })],
  [keyOf('orphan'), token(21, 99)],
  [keyOf('adminvip'), token(22, 3, { group: 'vip' })],
];

/** The catalog; `change` edits its token and user records as an admin API write would (a new snapshot). */
function snapshot(groups: Record<string, number> = { default: 1, vip: 0.5 }, change: { tokens?: (record: TokenRecord & { keyHash: string }) => (TokenRecord & { keyHash: string }) | undefined; users?: (record: UserRecord) => UserRecord } = {}): CatalogSnapshot {
  const records = tokens.map(([key, record]) => ({ ...record, keyHash: hashApiKey(key) })).flatMap((record) => {
    const changed = change.tokens === undefined ? record : change.tokens(record);
    return changed === undefined ? [] : [changed];
  });
  return {
    tokensByHash: new Map(records.map((record) => [record.keyHash, record])),
    tokensById: new Map(records.map((record) => [record.id, record])),
    playgroundTokensByUser: new Map(),
    usersById: new Map(users.map((record) => change.users?.(record) ?? record).map((record) => [record.id, record])),
    channels: [],
    channelsById: new Map(),
    prices: new Map(),
    groupRatios: new Map(Object.entries(groups)),
    settings: defaultSiteSettings,
    outputBudgetFor: () => defaultSiteSettings.defaultMaxOutputTokens,
    version: 'test',
  };
}

function failure(result: AuthenticationResult) {
  if (result.ok) throw new Error(`expected a refusal, got caller ${result.caller.token.name}`);
  return result.code;
}

describe('authenticateToken', () => {
  const catalog = snapshot();

  it('answers the caller, its user and the group for a valid key', () => {
    const result = authenticateToken(catalog, keyOf('valid'), nowSeconds);
    expect(result).toEqual({ ok: true, caller: { token: catalog.tokensById.get(10), user: users[0], group: 'default', pinnedChannelId: undefined, keyHash: hashApiKey(keyOf('valid')), snapshot: catalog } });
    expect(result.ok && result.caller.snapshot).toBe(catalog);
  });

  it.each([undefined, ''])('refuses a missing key (%j) with missing_api_key', (presented) => {
    expect(failure(authenticateToken(catalog, presented, nowSeconds))).toBe('missing_api_key');
  });

  it.each([
    ['an unknown key', keyOf('unknown')],
    ['garbage', 'not a key at all'],
    ['a malformed pin', `${keyOf('valid')}-x`],
    ['a token whose user no longer exists', keyOf('orphan')],
  ])('refuses %s with invalid_api_key', (_name, presented) => {
    expect(failure(authenticateToken(catalog, presented, nowSeconds))).toBe('invalid_api_key');
  });

  it('refuses a disabled token with token_disabled (401)', () => {
    expect(failure(authenticateToken(catalog, keyOf('disabledtoken'), nowSeconds))).toBe('token_disabled');
  });

  it('refuses the token of a disabled user with user_disabled (403)', () => {
    expect(failure(authenticateToken(catalog, keyOf('disableduser'), nowSeconds))).toBe('user_disabled');
  });

  it('refuses an expired token, including one expiring this very second', () => {
    expect(failure(authenticateToken(catalog, keyOf('expired'), nowSeconds))).toBe('token_expired');
    expect(failure(authenticateToken(catalog, keyOf('expiresnow'), nowSeconds))).toBe('token_expired');
    expect(authenticateToken(catalog, keyOf('future'), nowSeconds).ok).toBe(true);
  });

  it('accepts an expired token on read-only routes', () => {
    const result = authenticateToken(catalog, keyOf('expired'), nowSeconds, { readOnly: true });
    expect(result.ok && result.caller.token.id).toBe(13);
  });

  it('still refuses a disabled token or user on read-only routes', () => {
    expect(failure(authenticateToken(catalog, keyOf('disabledtoken'), nowSeconds, { readOnly: true }))).toBe('token_disabled');
    expect(failure(authenticateToken(catalog, keyOf('disableduser'), nowSeconds, { readOnly: true }))).toBe('user_disabled');
  });

  it('refuses a user token set to a group other than its user’s', () => {
    expect(failure(authenticateToken(catalog, keyOf('othergroup'), nowSeconds))).toBe('group_not_allowed');
  });

  it('refuses a group that does not exist or has been removed', () => {
    expect(failure(authenticateToken(catalog, keyOf('unknowngroup'), nowSeconds))).toBe('group_not_allowed');
    expect(authenticateToken(catalog, keyOf('removedgroup'), nowSeconds).ok).toBe(true);
    expect(failure(authenticateToken(snapshot({ default: 1 }), keyOf('removedgroup'), nowSeconds))).toBe('group_not_allowed');
  });

  it('lets a root token use another group', () => {
    const result = authenticateToken(catalog, keyOf('root'), nowSeconds);
    expect(result.ok && result.caller.group).toBe('vip');
  });

  it('refuses an admin’s token set to a group other than its own, as a user’s (only root’s may)', () => {
    expect(failure(authenticateToken(catalog, keyOf('adminvip'), nowSeconds))).toBe('group_not_allowed');
  });

  it('refuses a channel pin from a non-admin with channel_pin_forbidden', () => {
    expect(failure(authenticateToken(catalog, `${keyOf('valid')}-3`, nowSeconds))).toBe('channel_pin_forbidden');
  });

  it('checks the token before the pin: an unknown pinned key is invalid, a disabled one disabled', () => {
    expect(failure(authenticateToken(catalog, `${keyOf('unknown')}-3`, nowSeconds))).toBe('invalid_api_key');
    expect(failure(authenticateToken(catalog, `${keyOf('disabledtoken')}-3`, nowSeconds))).toBe('token_disabled');
  });

  it.each([
    ['admin', 'admin'],
    ['root', 'root'],
  ])('lets an %s pin a request to a channel', (_role, seed) => {
    const result = authenticateToken(catalog, `${keyOf(seed)}-7`, nowSeconds);
    expect(result.ok && result.caller.pinnedChannelId).toBe(7);
  });
});

describe('reauthenticateCaller (a caller read again once its body has arrived)', () => {
  const before = snapshot();
  const callerOf = (seed: string, presented = keyOf(seed)): AuthenticatedCaller => {
    const result = authenticateToken(before, presented, nowSeconds);
    if (!result.ok) throw new Error(result.code);
    return result.caller;
  };
  const changedToken = (id: number, fields: Partial<TokenRecord & { keyHash: string }>) => snapshot(undefined, { tokens: (record) => (record.id === id ? { ...record, ...fields } : record) });

  it('answers the same token, user and group from a catalog that changed elsewhere, read from the new snapshot', () => {
    const after = changedToken(15, { enabled: false });
    const result = reauthenticateCaller(after, callerOf('valid'), nowSeconds);
    expect(result.ok && result.caller).toEqual({ token: after.tokensById.get(10), user: users[0], group: 'default', pinnedChannelId: undefined, keyHash: hashApiKey(keyOf('valid')), snapshot: after });
  });

  it('refuses a token disabled since (token_disabled, 401)', () => {
    expect(failure(reauthenticateCaller(changedToken(10, { enabled: false }), callerOf('valid'), nowSeconds))).toBe('token_disabled');
  });

  it('refuses a token deleted since, or whose key was regenerated, as an unknown key (invalid_api_key, 401)', () => {
    expect(failure(reauthenticateCaller(snapshot(undefined, { tokens: (record) => (record.id === 10 ? undefined : record) }), callerOf('valid'), nowSeconds))).toBe('invalid_api_key');
    expect(failure(reauthenticateCaller(changedToken(10, { keyHash: hashApiKey(keyOf('regenerated')) }), callerOf('valid'), nowSeconds))).toBe('invalid_api_key');
  });

  it('refuses the token of a user disabled or deleted since', () => {
    expect(failure(reauthenticateCaller(snapshot(undefined, { users: (record) => (record.id === 1 ? { ...record, enabled: false } : record) }), callerOf('valid'), nowSeconds))).toBe('user_disabled');
    expect(failure(reauthenticateCaller(changedToken(10, { userId: 99 }), callerOf('valid'), nowSeconds))).toBe('invalid_api_key');
  });

  it('refuses a token that expired since, on the same catalog', () => {
    expect(failure(reauthenticateCaller(before, callerOf('future'), nowSeconds + 60))).toBe('token_expired');
  });

  it('applies a changed group and model limits, and refuses a group taken away', () => {
    const moved = reauthenticateCaller(snapshot(undefined, { users: (record) => (record.id === 1 ? { ...record, group: 'vip' } : record) }), callerOf('future'), nowSeconds);
    expect(moved.ok && moved.caller.group).toBe('vip');
    const limited = reauthenticateCaller(changedToken(10, { modelLimits: ['gpt-4o'] }), callerOf('valid'), nowSeconds);
    expect(limited.ok && tokenAllowsModel(limited.caller, 'gpt-4o-mini')).toBe(false);
    expect(failure(reauthenticateCaller(changedToken(15, { group: 'vip' }), callerOf('future'), nowSeconds))).toBe('group_not_allowed');
  });

  it('keeps an administrator’s channel pin', () => {
    const result = reauthenticateCaller(changedToken(15, { enabled: false }), callerOf('admin', `${keyOf('admin')}-7`), nowSeconds);
    expect(result.ok && result.caller.pinnedChannelId).toBe(7);
  });

  it('finds a caller with no key (a playground session) by its token id', () => {
    const playground: AuthenticatedCaller = { ...callerOf('valid'), keyHash: undefined };
    expect(reauthenticateCaller(changedToken(10, { keyHash: hashApiKey(keyOf('regenerated')) }), playground, nowSeconds).ok).toBe(true);
    expect(failure(reauthenticateCaller(changedToken(10, { enabled: false }), playground, nowSeconds))).toBe('token_disabled');
  });
});

describe('tokenAllowsModel', () => {
  const catalog = snapshot();
  const callerOf = (seed: string) => {
    const result = authenticateToken(catalog, keyOf(seed), nowSeconds);
    if (!result.ok) throw new Error(result.code);
    return result.caller;
  };

  it('allows only the listed models when the token has model_limits', () => {
    expect(tokenAllowsModel(callerOf('valid'), 'gpt-4o-mini')).toBe(true);
    expect(tokenAllowsModel(callerOf('valid'), 'gpt-4o')).toBe(false);
  });

  it('allows every model when the token has no model_limits', () => {
    expect(tokenAllowsModel(callerOf('admin'), 'anything')).toBe(true);
  });
});
