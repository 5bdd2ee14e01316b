import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { windowEndOf, type RateCheck } from './rate-limiter.js';
import { RedisRateLimiter, createRedisRateLimiter } from './redis-rate-limiter.js';

const redisUrl = process.env.RELAY_TEST_REDIS_URL;
const keyPrefix = `relay-test:${Date.now().toString(36)}:${randomBytes(4).toString('hex')}:`;

const rpm = (key: string, limit: number, cost = 1): RateCheck => ({ key, limit, windowSeconds: 60, cost, kind: 'requests' });
const tpm = (key: string, limit: number, cost: number): RateCheck => ({ key, limit, windowSeconds: 60, cost, kind: 'tokens' });

describe.skipIf(redisUrl === undefined)('RedisRateLimiter', () => {
  let inspector: Redis;
  let limiter: RedisRateLimiter;

  beforeAll(() => {
    inspector = new Redis(redisUrl ?? '');
    limiter = createRedisRateLimiter(redisUrl ?? '', { keyPrefix });
  });

  afterAll(async () => {
    const keys = await inspector.keys(`${keyPrefix}*`);
    if (keys.length > 0) await inspector.del(...keys);
    await limiter.close();
    await inspector.quit();
  });

  it('allows up to the limit, then refuses with retry-after taken from the key TTL', async () => {
    for (let index = 0; index < 3; index += 1) {
      const decision = await limiter.consume([rpm('full', 3)], 0);
      expect(decision).toEqual({ allowed: true, states: [{ kind: 'requests', limit: 3, remaining: 2 - index, resetSeconds: 60 }] });
    }
    await inspector.pexpire(`${keyPrefix}full`, 12_345);
    const refused = await limiter.consume([rpm('full', 3)], 0);
    expect(refused).toEqual({
      allowed: false,
      exceeded: { kind: 'requests', limit: 3, remaining: 0, resetSeconds: 13 },
      retryAfterSeconds: 13,
      states: [{ kind: 'requests', limit: 3, remaining: 0, resetSeconds: 13 }],
    });
    expect(await inspector.get(`${keyPrefix}full`)).toBe('3');
  });

  it('keeps every window as a key with a TTL, so nothing outlives its window', async () => {
    await limiter.consume([rpm('ttl', 10), tpm('ttl:tpm', 1000, 40)], 0);
    const ttls = await Promise.all([inspector.pttl(`${keyPrefix}ttl`), inspector.pttl(`${keyPrefix}ttl:tpm`)]);
    for (const ttl of ttls) {
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it('opens a fresh window once the old one has expired', async () => {
    const short: RateCheck = { key: 'short', limit: 1, windowSeconds: 0.3, cost: 1, kind: 'requests' };
    expect((await limiter.consume([short], 0)).allowed).toBe(true);
    expect((await limiter.consume([short], 0)).allowed).toBe(false);
    await sleep(400);
    expect((await limiter.consume([short], 0)).allowed).toBe(true);
  });

  it('consumes nothing when any check of the call is refused', async () => {
    await limiter.consume([rpm('aon:user', 1)], 0);
    const refused = await limiter.consume([rpm('aon:token', 5), tpm('aon:tpm', 1000, 100), rpm('aon:user', 1)], 0);
    expect(refused.allowed).toBe(false);
    if (refused.allowed) return;
    expect(refused.exceeded.limit).toBe(1);
    expect(refused.states.map((state) => state.remaining)).toEqual([5, 1000, 0]);
    expect(await inspector.exists(`${keyPrefix}aon:token`, `${keyPrefix}aon:tpm`)).toBe(0);
  });

  it('counts both costs when one key is named twice in a call', async () => {
    expect((await limiter.consume([rpm('twice', 3, 2), rpm('twice', 3, 2)], 0)).allowed).toBe(false);
    const allowed = await limiter.consume([rpm('twice', 4, 2), rpm('twice', 4, 2)], 0);
    expect(allowed.states.map((state) => state.remaining)).toEqual([2, 0]);
    expect(await inspector.get(`${keyPrefix}twice`)).toBe('4');
  });

  it('refuses a zero-cost check on a full window without creating keys for fresh ones', async () => {
    expect((await limiter.consume([tpm('zero', 100, 0)], 0)).allowed).toBe(true);
    expect(await inspector.exists(`${keyPrefix}zero`)).toBe(0);
    await limiter.consume([tpm('zero', 100, 100)], 0);
    expect((await limiter.consume([tpm('zero', 100, 0)], 0)).allowed).toBe(false);
  });

  it('adds units after the fact, refunds them down to zero at most, and drops refunds to ended windows', async () => {
    const window = { key: 'adjust', windowSeconds: 60 };
    await limiter.consume([tpm('adjust', 1000, 100)], 0);
    await limiter.adjust(window, 850, 0);
    await limiter.drain();
    expect(await inspector.get(`${keyPrefix}adjust`)).toBe('950');
    await limiter.adjust(window, -5_000, 0);
    await limiter.drain();
    expect(await inspector.get(`${keyPrefix}adjust`)).toBe('0');
    expect(await inspector.pttl(`${keyPrefix}adjust`)).toBeGreaterThan(55_000);

    await limiter.adjust({ key: 'adjust:none', windowSeconds: 60 }, -10, 0);
    await limiter.drain();
    expect(await inspector.exists(`${keyPrefix}adjust:none`)).toBe(0);
    await limiter.adjust({ key: 'adjust:none', windowSeconds: 60 }, 10, 0);
    await limiter.drain();
    expect(await inspector.get(`${keyPrefix}adjust:none`)).toBe('10');
    expect(await inspector.pttl(`${keyPrefix}adjust:none`)).toBeGreaterThan(55_000);
  });

  it('applies a refund to the window it was counted in, and drops it once a later window of the key is live', async () => {
    const key = 'late-refund';
    // Counted at t = 0 on the caller's clock (Redis keeps its own: the window has ~60 s left now).
    const counted = await limiter.consume([tpm(key, 1000, 900)], 0);
    const endsAtMs = windowEndOf(counted.states[0]!, 0);
    await limiter.adjust({ key, windowSeconds: 60, endsAtMs }, -800, 1_000);
    await limiter.drain();
    expect(await inspector.get(`${keyPrefix}${key}`)).toBe('100');
    // That window ends; the next one opens with 900 units; the refund of the first arrives at t = 61 s.
    await inspector.del(`${keyPrefix}${key}`);
    await limiter.consume([tpm(key, 1000, 900)], 61_000);
    await limiter.adjust({ key, windowSeconds: 60, endsAtMs }, -800, 61_000);
    await limiter.drain();
    expect(await inspector.get(`${keyPrefix}${key}`)).toBe('900');
    // Without the window's end, the live window takes it, as before.
    await limiter.adjust({ key, windowSeconds: 60 }, -800, 61_000);
    await limiter.drain();
    expect(await inspector.get(`${keyPrefix}${key}`)).toBe('100');
  });

  it('sends the adjustments a settlement awaits one after another as one script call, off the caller\'s path', async () => {
    const connection = new Redis(redisUrl ?? '');
    const batching = new RedisRateLimiter(connection, { keyPrefix, ownsConnection: true });
    const commands = connection as unknown as { relayRateAdjust: (...parameters: unknown[]) => Promise<number> };
    const original = commands.relayRateAdjust.bind(connection);
    const calls: unknown[][] = [];
    commands.relayRateAdjust = (...parameters) => {
      calls.push(parameters);
      return original(...parameters);
    };
    try {
      await batching.consume([tpm('batch:user', 1000, 100), tpm('batch:token', 1000, 100)], 0);
      // As settleRequest does: one awaited adjust per token window.
      for (const key of ['batch:user', 'batch:token']) await batching.adjust({ key, windowSeconds: 60 }, 250, 0);
      await batching.adjust({ key: 'batch:user', windowSeconds: 60 }, -50, 0);
      expect(calls).toHaveLength(0);
      await batching.drain();
      expect(calls).toHaveLength(1);
      expect(calls[0]?.[0]).toBe(3);
      expect(await inspector.mget(`${keyPrefix}batch:user`, `${keyPrefix}batch:token`)).toEqual(['300', '350']);
    } finally {
      await batching.close();
    }
  });

  it('counts a queued adjustment in the next consume, and applies what is queued before closing', async () => {
    const other = createRedisRateLimiter(redisUrl ?? '', { keyPrefix });
    await other.consume([tpm('queued', 1000, 100)], 0);
    await other.adjust({ key: 'queued', windowSeconds: 60 }, 800, 0);
    const decision = await other.consume([tpm('queued', 1000, 0)], 0);
    expect(decision.states[0]?.remaining).toBe(100);
    await other.adjust({ key: 'queued', windowSeconds: 60 }, 50, 0);
    await other.close();
    expect(await inspector.get(`${keyPrefix}queued`)).toBe('950');
  });

  it('holds one limit across two gateway processes: 10 concurrent calls against 5 allow exactly 5', async () => {
    const other = createRedisRateLimiter(redisUrl ?? '', { keyPrefix });
    try {
      const limiters = [limiter, other];
      const decisions = await Promise.all(
        Array.from({ length: 10 }, (_unused, index) => (limiters[index % 2] as RedisRateLimiter).consume([rpm('shared', 5)], 0)),
      );
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
      expect(await inspector.get(`${keyPrefix}shared`)).toBe('5');
      const remaining = decisions.flatMap((decision) => (decision.allowed ? decision.states.map((state) => state.remaining) : [])).sort((left, right) => left - right);
      expect(remaining).toEqual([0, 1, 2, 3, 4]);
    } finally {
      await other.close();
    }
  });

  it('holds all-or-nothing across processes: a shared user limit and per-token limits', async () => {
    const other = createRedisRateLimiter(redisUrl ?? '', { keyPrefix });
    try {
      const calls = Array.from({ length: 12 }, (_unused, index) =>
        (index % 2 === 0 ? limiter : other).consume([rpm(`multi:token:${index % 3}`, 2), rpm('multi:user', 4)], 0),
      );
      const decisions = await Promise.all(calls);
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(4);
      const tokenCounts = await Promise.all([0, 1, 2].map((token) => inspector.get(`${keyPrefix}multi:token:${token}`)));
      expect(tokenCounts.reduce((sum, count) => sum + Number(count ?? 0), 0)).toBe(4);
      expect(await inspector.get(`${keyPrefix}multi:user`)).toBe('4');
    } finally {
      await other.close();
    }
  });
});
