import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import type { CatalogSnapshot } from '../catalog/catalog.js';
import type { TokenRecord, UserRecord } from '../catalog/catalog-records.js';
import { defaultSiteSettings } from '../catalog/site-settings.js';
import { currentCaller } from './current-caller.js';
import type { RelayServices } from './relay-services.js';

const nowMs = 1_750_000_000_000;
const user: UserRecord = { id: 1, username: 'alice', role: 'user', group: 'default', quota: 0, unlimitedQuota: true, usedQuota: 0, requestCount: 0, enabled: true, sessionVersion: 0, createdAt: 0 };
const token: TokenRecord & { keyHash: string } = {
  id: 10, userId: 1, name: 'k', keyPrefix: 'sk-…', group: null, remainQuota: 0, usedQuota: 0, unlimitedQuota: true, modelLimits: null,
  expiresAt: 0, enabled: true, rateLimit: {}, purpose: 'api', requestCount: 0, createdAt: 0, keyHash: 'hash-of-the-key',
};

function catalogOf(tokenRecord: TokenRecord & { keyHash: string }, userRecord: UserRecord = user): CatalogSnapshot {
  return {
    tokensByHash: new Map([[tokenRecord.keyHash, tokenRecord]]),
    tokensById: new Map([[tokenRecord.id, tokenRecord]]),
    playgroundTokensByUser: new Map(),
    usersById: new Map([[userRecord.id, userRecord]]),
    channels: [],
    channelsById: new Map(),
    prices: new Map(),
    groupRatios: new Map([['default', 1], ['vip', 2]]),
    settings: defaultSiteSettings,
    outputBudgetFor: () => defaultSiteSettings.defaultMaxOutputTokens,
    version: 'v',
  };
}

function setting(snapshot: CatalogSnapshot, caller: AuthenticatedCaller) {
  const request = { caller } as FastifyRequest;
  const services = { catalog: { snapshot } } as unknown as RelayServices;
  return { request, services };
}

const callerFrom = (snapshot: CatalogSnapshot, tokenRecord: TokenRecord = token): AuthenticatedCaller => ({ token: tokenRecord, user, group: 'default', pinnedChannelId: undefined, keyHash: token.keyHash, snapshot });

describe('currentCaller', () => {
  it('is the caller itself, untouched, while the catalog is the snapshot it was read from', () => {
    const snapshot = catalogOf(token);
    const caller = callerFrom(snapshot);
    const { request, services } = setting(snapshot, caller);
    expect(currentCaller(services, request, nowMs)).toBe(caller);
    expect(request.caller).toBe(caller);
  });

  it('reads the caller again from a changed catalog and puts the new record on the request', () => {
    const before = catalogOf(token);
    const after = catalogOf({ ...token, modelLimits: ['gpt-4o'] }, { ...user, group: 'vip' });
    const { request, services } = setting(after, callerFrom(before));
    const fresh = currentCaller(services, request, nowMs);
    expect({ group: fresh.group, limits: fresh.token.modelLimits, snapshot: fresh.snapshot === after }).toEqual({ group: 'vip', limits: ['gpt-4o'], snapshot: true });
    expect(request.caller).toBe(fresh);
  });

  it.each([
    ['token disabled', catalogOf({ ...token, enabled: false }), 'token_disabled', 401],
    ['token deleted', catalogOf({ ...token, id: 11, keyHash: 'another' }), 'invalid_api_key', 401],
    ['key regenerated', catalogOf({ ...token, keyHash: 'hash-of-a-new-key' }), 'invalid_api_key', 401],
    ['user disabled', catalogOf(token, { ...user, enabled: false }), 'user_disabled', 403],
    ['group removed', catalogOf(token, { ...user, group: 'gone' }), 'group_not_allowed', 403],
  ] as const)('refuses a caller whose %s since its headers were read (%s, %i)', (_change, after, code, status) => {
    const { request, services } = setting(after, callerFrom(catalogOf(token)));
    expect(() => currentCaller(services, request, nowMs)).toThrow(expect.objectContaining({ code, status }));
  });

  it('refuses a key that expired since, though the catalog did not change', () => {
    const expiring = { ...token, expiresAt: nowMs / 1000 + 1 };
    const snapshot = catalogOf(expiring);
    const { request, services } = setting(snapshot, callerFrom(snapshot, expiring));
    expect(currentCaller(services, request, nowMs + 999).token).toBe(expiring);
    expect(() => currentCaller(services, request, nowMs + 1000)).toThrow(expect.objectContaining({ code: 'token_expired', status: 401 }));
  });
});
