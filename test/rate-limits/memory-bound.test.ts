import { describe, expect, it } from 'vitest';
import { buildRateChecks } from '../../src/limits/build-rate-checks.js';
import { defaultMaxKeys, MemoryRateLimiter } from '../../src/limits/memory-rate-limiter.js';
import type { RateCheck } from '../../src/limits/rate-limiter.js';

/**
 * The in-memory limiter's key cap (new-api#6732: its memory limiter ran out of memory with a huge
 * GLOBAL_API_RATE_LIMIT). Unit level, with the limiter's own clock: the cap holds whatever the limits,
 * and eviction cannot be used to reset a full window cheaply.
 */

const rpm = (key: string, limit: number): RateCheck => ({ key, limit, windowSeconds: 60, cost: 1, kind: 'requests' });

/** The checks the gateway builds for one relay request (per IP, per user, per token). */
function requestChecks(ip: string, userId: number, tokenId: number): RateCheck[] {
  const caller = { user: { id: userId }, token: { id: tokenId, rateLimit: { rpm: 3 } } } as any;
  return buildRateChecks(caller, ip, 10, { ipRpm: 1_000_000, userRpm: 0, userTpm: 0 });
}

describe('MemoryRateLimiter key cap', () => {
  it('a huge limit costs one record per key: 10 000 requests on one key with limit 2^31-1 hold one window', async () => {
    const limiter = new MemoryRateLimiter();
    for (let index = 0; index < 10_000; index += 1) expect((await limiter.consume([rpm('ip:203.0.113.1:rpm', 2_147_483_647)], index)).allowed).toBe(true);
    expect(limiter.size).toBe(1);
  });

  it('the default cap (100 000) holds under 30 % more distinct client addresses than it', async () => {
    expect(defaultMaxKeys).toBe(100_000);
    const limiter = new MemoryRateLimiter();
    for (let index = 0; index < 130_000; index += 1) await limiter.consume([rpm(`ip:10.${index >> 16}.${(index >> 8) & 255}.${index & 255}:rpm`, 1_000)], 1_000);
    expect(limiter.size).toBe(100_000);
    expect(limiter.evictions).toBe(30_000);
  });

  it('a full token window that its owner keeps retrying is never evicted by a flood of other clients\' windows', async () => {
    const limiter = new MemoryRateLimiter({ maxKeys: 1_000 });
    let now = 0;
    for (let index = 0; index < 3; index += 1) expect((await limiter.consume(requestChecks('198.51.100.1', 1, 1), now)).allowed).toBe(true);
    let admittedAgain = 0;
    // 20 000 other requests (each a new address: 20× the cap), the limited client retrying after every 50.
    for (let index = 0; index < 20_000; index += 1) {
      now += 1;
      await limiter.consume(requestChecks(`10.0.${index >> 8}.${index & 255}`, 2, 2 + (index % 7)), now);
      if (index % 50 === 0 && (await limiter.consume(requestChecks('198.51.100.1', 1, 1), now)).allowed) admittedAgain += 1;
    }
    expect(now).toBeLessThan(60_000);
    expect(admittedAgain).toBe(0);
    expect(limiter.size).toBeLessThanOrEqual(1_000);
  });

  it('an idle full window is only forgotten after more new windows than the cap (not by a handful)', async () => {
    const limiter = new MemoryRateLimiter({ maxKeys: 1_000 });
    expect((await limiter.consume([rpm('token:1:rpm', 1)], 0)).allowed).toBe(true);
    for (let index = 0; index < 998; index += 1) await limiter.consume([rpm(`ip:${index}`, 10)], 1);
    // Below the cap: nothing is evicted.
    expect(limiter.evictions).toBe(0);
    const probe = async () => (await limiter.consume([rpm('token:1:rpm', 1)], 2)).allowed;
    // The probe itself marks the window used, so it survives the next cycle of evictions too.
    expect(await probe()).toBe(false);
    for (let index = 0; index < 1_000; index += 1) await limiter.consume([rpm(`flood-a:${index}`, 10)], 2);
    expect(await probe()).toBe(false);
  });
});
