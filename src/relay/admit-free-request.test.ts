import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import { MemoryRateLimiter } from '../limits/memory-rate-limiter.js';
import { admitFreeRequest } from './admit-free-request.js';
import type { RelayServices } from './relay-services.js';

const now = 1_000_000;
const snapshot = { settings: { ipRpm: 0, userRpm: 0, userTpm: 0 } };
// Read from the catalog as it still is: admission takes it as it is (current-caller.test.ts covers a change).
const caller = { token: { id: 7, rateLimit: { rpm: 2, tpm: 100 }, expiresAt: 0 }, user: { id: 3 }, group: 'default', pinnedChannelId: undefined, keyHash: 'h', snapshot } as unknown as AuthenticatedCaller;
const request = { caller, ip: '203.0.113.9' } as unknown as FastifyRequest;

function services(limiter: MemoryRateLimiter): RelayServices {
  return { rateLimiter: limiter, now: () => now, catalog: { snapshot } } as unknown as RelayServices;
}

describe('admitFreeRequest', () => {
  it('counts one request against the key rpm and refuses the one past it with a 429', async () => {
    const limiter = new MemoryRateLimiter();
    const first = await admitFreeRequest(services(limiter), request);
    expect(first.rateHeaders['x-ratelimit-remaining-requests']).toBe('1');
    expect(first.caller).toBe(caller);
    await admitFreeRequest(services(limiter), request);
    await expect(admitFreeRequest(services(limiter), request)).rejects.toMatchObject({ code: 'rate_limited', status: 429 });
  });

  it('is not refused by a full tokens window, and takes no tokens', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.consume([{ key: 'token:7:tpm', limit: 100, windowSeconds: 60, cost: 100, kind: 'tokens' }], now);
    const admitted = await admitFreeRequest(services(limiter), request);
    expect(admitted.rateChecks.map(({ check }) => check.kind)).toEqual(['requests']);
    expect(admitted.rateHeaders['x-ratelimit-remaining-tokens']).toBeUndefined();
  });

  it('serves with a warning when the limiter cannot be reached', async () => {
    const limiter = new MemoryRateLimiter();
    limiter.consume = () => Promise.reject(new Error('connection refused'));
    const admitted = await admitFreeRequest(services(limiter), request);
    expect(admitted.warnings).toEqual(['rate limiter unavailable: connection refused']);
  });
});
