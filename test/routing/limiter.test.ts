import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/limits/memory-rate-limiter.js';
import { RedisRateLimiter } from '../../src/limits/redis-rate-limiter.js';
import type { RateCheck, RateLimiter } from '../../src/limits/rate-limiter.js';
import { serverUrls } from '../support/test-databases.js';

const rpm = (key: string, limit: number, cost = 1): RateCheck => ({ key, limit, windowSeconds: 60, cost, kind: 'requests' });

describe('memory limiter stays bounded (new-api#6732)', () => {
  it('a flood of distinct keys never holds more than maxKeys windows', async () => {
    const limiter = new MemoryRateLimiter({ maxKeys: 1000 });
    const now = 1_000_000;
    for (let i = 0; i < 50_000; i += 1) await limiter.consume([rpm(`ip:${i}`, 1_000_000)], now);
    expect(limiter.size).toBeLessThanOrEqual(1000);
  });

  it('a huge limit costs one record, not one per request', async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 20_000; i += 1) await limiter.consume([rpm('global', 1_000_000)], 5_000 + i);
    expect(limiter.size).toBe(1);
  });

  it('a key in use every call survives a flood of new keys (its full window is not reset by eviction)', async () => {
    const limiter = new MemoryRateLimiter({ maxKeys: 100 });
    const now = 2_000_000;
    for (let i = 0; i < 3; i += 1) expect((await limiter.consume([rpm('hot', 3)], now)).allowed).toBe(true);
    for (let i = 0; i < 5000; i += 1) {
      await limiter.consume([rpm(`flood:${i}`, 10)], now);
      expect((await limiter.consume([rpm('hot', 3)], now)).allowed).toBe(false);
    }
  });

  it('windows end after 60 s and the key is counted afresh', async () => {
    const limiter = new MemoryRateLimiter();
    expect((await limiter.consume([rpm('k', 1)], 0)).allowed).toBe(true);
    expect((await limiter.consume([rpm('k', 1)], 59_999)).allowed).toBe(false);
    expect((await limiter.consume([rpm('k', 1)], 60_000)).allowed).toBe(true);
  });
});

function mulberry(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.skipIf(serverUrls.redis === undefined)('Redis limiter agrees with the memory limiter', () => {
  it('same decisions and remaining counts over a random sequence of consumes and adjustments', async () => {
    const redis = new Redis(serverUrls.redis!);
    const prefix = `routing-test:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
    const red: RateLimiter = new RedisRateLimiter(redis, { keyPrefix: prefix });
    const mem: RateLimiter = new MemoryRateLimiter();
    const random = mulberry(42);
    const keys = ['token:1:rpm', 'token:1:tpm', 'user:1:rpm', 'user:1:tpm', 'ip:x:rpm'];
    const limits: Record<string, number> = { 'token:1:rpm': 20, 'token:1:tpm': 500, 'user:1:rpm': 30, 'user:1:tpm': 800, 'ip:x:rpm': 25 };
    try {
      for (let step = 0; step < 400; step += 1) {
        const now = Date.now();
        if (random() < 0.3) {
          const key = keys[1 + 2 * Math.floor(random() * 2)]!; // a tpm key
          const delta = Math.floor(random() * 200) - 120;
          await mem.adjust({ key, windowSeconds: 60 }, delta, now);
          await red.adjust({ key, windowSeconds: 60 }, delta, now);
          continue;
        }
        const tokens = Math.floor(random() * 120);
        const checks: RateCheck[] = keys
          .filter(() => random() < 0.7)
          .map((key) => ({ key, limit: limits[key]!, windowSeconds: 60, cost: key.endsWith('tpm') ? Math.min(tokens, limits[key]!) : 1, kind: key.endsWith('tpm') ? 'tokens' : 'requests' }));
        if (checks.length === 0) continue;
        const m = await mem.consume(checks, now);
        const r = await red.consume(checks, now);
        expect({ step, allowed: r.allowed, remaining: r.states.map((s) => s.remaining) }).toEqual({ step, allowed: m.allowed, remaining: m.states.map((s) => s.remaining) });
      }
    } finally {
      const found = await redis.keys(`${prefix}*`);
      if (found.length > 0) await redis.del(...found);
      await red.close();
      await redis.quit();
    }
  });
});
