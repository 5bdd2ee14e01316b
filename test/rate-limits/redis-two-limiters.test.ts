/** From the limits audit: two limiters (two processes) on one Redis never admit more than the limit together, and a refund from one reaches the other. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisRateLimiter, type RedisRateLimiter } from '../../src/limits/redis-rate-limiter.js';

const url = process.env.RELAY_TEST_REDIS_URL;
const prefix = `two-limiters:${process.pid}:${Date.now()}:`;

describe.skipIf(url === undefined)('Redis limiter shared by two processes', () => {
  let a: RedisRateLimiter;
  let b: RedisRateLimiter;
  beforeAll(() => {
    a = createRedisRateLimiter(url ?? '', { keyPrefix: prefix });
    b = createRedisRateLimiter(url ?? '', { keyPrefix: prefix });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('40 concurrent consumes over two limiters against rpm 10 + tpm 1000 admit exactly 10', async () => {
    const checks = [
      { key: 'token:1:rpm', limit: 10, windowSeconds: 60, cost: 1, kind: 'requests' as const },
      { key: 'token:1:tpm', limit: 1000, windowSeconds: 60, cost: 50, kind: 'tokens' as const },
    ];
    const decisions = await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? a : b).consume(checks, Date.now())));
    expect(decisions.filter((decision) => decision.allowed).length).toBe(10);
  });

  it('tokens: estimates admitted on A and refunded on A are visible to B at once', async () => {
    const check = { key: 'token:2:tpm', limit: 100, windowSeconds: 60, cost: 100, kind: 'tokens' as const };
    const first = await a.consume([check], Date.now());
    expect(first.allowed).toBe(true);
    if (!first.allowed) return;
    await a.adjust({ key: check.key, windowSeconds: 60, endsAtMs: Date.now() + (first.states[0]?.resetSeconds ?? 0) * 1000 }, -90, Date.now());
    await a.drain();
    const second = await b.consume([{ ...check, cost: 50 }], Date.now());
    expect(second.allowed).toBe(true);
  });
});
