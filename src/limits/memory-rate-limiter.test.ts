import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from './memory-rate-limiter.js';
import { windowEndOf, type RateCheck } from './rate-limiter.js';

const rpm = (key: string, limit: number, cost = 1): RateCheck => ({ key, limit, windowSeconds: 60, cost, kind: 'requests' });
const tpm = (key: string, limit: number, cost: number): RateCheck => ({ key, limit, windowSeconds: 60, cost, kind: 'tokens' });

describe('MemoryRateLimiter', () => {
  it('allows up to the limit, then refuses with the seconds left in the window', async () => {
    const limiter = new MemoryRateLimiter();
    for (let index = 0; index < 3; index += 1) {
      const decision = await limiter.consume([rpm('token:1', 3)], 1_000 + index);
      expect(decision.allowed).toBe(true);
      expect(decision.states).toEqual([{ kind: 'requests', limit: 3, remaining: 2 - index, resetSeconds: 60 }]);
    }
    const refused = await limiter.consume([rpm('token:1', 3)], 11_000);
    expect(refused).toEqual({
      allowed: false,
      exceeded: { kind: 'requests', limit: 3, remaining: 0, resetSeconds: 50 },
      retryAfterSeconds: 50,
      states: [{ kind: 'requests', limit: 3, remaining: 0, resetSeconds: 50 }],
    });
  });

  it('opens a fresh window once the old one has ended', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.consume([rpm('token:1', 2)], 0);
    await limiter.consume([rpm('token:1', 2)], 1);
    expect((await limiter.consume([rpm('token:1', 2)], 59_999)).allowed).toBe(false);
    const next = await limiter.consume([rpm('token:1', 2)], 60_000);
    expect(next).toEqual({ allowed: true, states: [{ kind: 'requests', limit: 2, remaining: 1, resetSeconds: 60 }] });
  });

  it('consumes nothing when any check of the call is refused', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.consume([rpm('user:7', 1)], 0);
    const refused = await limiter.consume([rpm('token:1', 5), tpm('token:1:tpm', 1000, 100), rpm('user:7', 1)], 1_000);
    expect(refused.allowed).toBe(false);
    if (refused.allowed) return;
    expect(refused.exceeded).toEqual({ kind: 'requests', limit: 1, remaining: 0, resetSeconds: 59 });
    expect(refused.states.map((state) => state.remaining)).toEqual([5, 1000, 0]);
    const after = await limiter.consume([rpm('token:1', 5), tpm('token:1:tpm', 1000, 100)], 2_000);
    expect(after.states.map((state) => state.remaining)).toEqual([4, 900]);
  });

  it('reports the refused window that ends last when several are full', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.consume([rpm('early', 1)], 0);
    await limiter.consume([rpm('late', 1)], 30_000);
    const refused = await limiter.consume([rpm('early', 1), rpm('late', 1)], 40_000);
    expect(refused.allowed).toBe(false);
    if (refused.allowed) return;
    expect(refused.retryAfterSeconds).toBe(50);
  });

  it('refuses a zero-cost check on a full window and a cost larger than the whole limit', async () => {
    const limiter = new MemoryRateLimiter();
    expect((await limiter.consume([tpm('tpm', 100, 0)], 0)).allowed).toBe(true);
    expect((await limiter.consume([tpm('tpm', 100, 101)], 0)).allowed).toBe(false);
    expect((await limiter.consume([tpm('tpm', 100, 100)], 0)).allowed).toBe(true);
    expect((await limiter.consume([tpm('tpm', 100, 0)], 0)).allowed).toBe(false);
  });

  it('counts both costs when one key is named twice in a call', async () => {
    const limiter = new MemoryRateLimiter();
    expect((await limiter.consume([rpm('same', 3, 2), rpm('same', 3, 2)], 0)).allowed).toBe(false);
    const allowed = await limiter.consume([rpm('same', 4, 2), rpm('same', 4, 2)], 0);
    expect(allowed.states.map((state) => state.remaining)).toEqual([2, 0]);
  });

  it('adds units after the fact and refunds them without going below zero', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.consume([tpm('tpm', 1000, 100)], 0);
    await limiter.adjust({ key: 'tpm', windowSeconds: 60 }, 850, 1_000);
    expect((await limiter.consume([tpm('tpm', 1000, 100)], 2_000)).allowed).toBe(false);
    await limiter.adjust({ key: 'tpm', windowSeconds: 60 }, -300, 3_000);
    const after = await limiter.consume([tpm('tpm', 1000, 100)], 4_000);
    expect(after.states[0]?.remaining).toBe(250); // 100 + 850 - 300 + 100 used
    await limiter.adjust({ key: 'tpm', windowSeconds: 60 }, -5_000, 5_000);
    expect((await limiter.consume([tpm('tpm', 1000, 0)], 6_000)).states[0]?.remaining).toBe(1000);
  });

  it('opens a window for units added when none is open, but drops a refund to an ended window', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.adjust({ key: 'tpm', windowSeconds: 60 }, 400, 0);
    expect((await limiter.consume([tpm('tpm', 1000, 0)], 10_000)).states[0]).toEqual({ kind: 'tokens', limit: 1000, remaining: 600, resetSeconds: 50 });
    await limiter.adjust({ key: 'tpm', windowSeconds: 60 }, -400, 61_000);
    expect(limiter.size).toBe(0);
    expect((await limiter.consume([tpm('tpm', 1000, 0)], 61_000)).states[0]?.remaining).toBe(1000);
  });

  it('applies a refund to the window it was counted in, and drops it once a later window of the key is live', async () => {
    const limiter = new MemoryRateLimiter();
    const counted = await limiter.consume([tpm('tpm', 1000, 900)], 0);
    const endsAtMs = windowEndOf(counted.states[0]!, 0);
    await limiter.adjust({ key: 'tpm', windowSeconds: 60, endsAtMs }, -800, 30_000);
    expect((await limiter.consume([tpm('tpm', 1000, 0)], 30_000)).states[0]?.remaining).toBe(900);
    // The window ends at 60 s; a request at 61 s opens the next one with 900 units, then the late refund comes.
    await limiter.consume([tpm('tpm', 1000, 900)], 61_000);
    await limiter.adjust({ key: 'tpm', windowSeconds: 60, endsAtMs }, -800, 62_000);
    expect((await limiter.consume([tpm('tpm', 1000, 0)], 62_000)).states[0]?.remaining).toBe(100);
    // Without the window's end (a limiter that was unreachable at admission), the live window takes it.
    await limiter.adjust({ key: 'tpm', windowSeconds: 60 }, -800, 62_000);
    expect((await limiter.consume([tpm('tpm', 1000, 0)], 62_000)).states[0]?.remaining).toBe(900);
  });

  it('evicts the least recently used key when the key cap is reached', async () => {
    const limiter = new MemoryRateLimiter({ maxKeys: 3 });
    for (const key of ['a', 'b', 'c']) await limiter.consume([rpm(key, 1)], 0);
    expect((await limiter.consume([rpm('a', 1)], 1)).allowed).toBe(false); // touches a: b is now the oldest
    await limiter.consume([rpm('d', 1)], 2);
    expect(limiter.size).toBe(3);
    expect(limiter.evictions).toBe(1);
    expect((await limiter.consume([rpm('b', 1)], 3)).allowed).toBe(true); // b's count restarted
    expect((await limiter.consume([rpm('c', 1)], 4)).allowed).toBe(true); // …and b evicted c
    expect((await limiter.consume([rpm('a', 1)], 5)).allowed).toBe(true); // …and c evicted a, the oldest again
  });

  it('never holds more than maxKeys windows under a flood of distinct keys', async () => {
    const limiter = new MemoryRateLimiter({ maxKeys: 1_000 });
    for (let index = 0; index < 50_000; index += 1) await limiter.consume([rpm(`ip:${index}`, 1_000_000)], index);
    expect(limiter.size).toBe(1_000);
  });

  it('sweeps ended windows without timers as later calls arrive', async () => {
    const limiter = new MemoryRateLimiter();
    for (let index = 0; index < 1_000; index += 1) await limiter.consume([{ ...rpm(`ip:${index}`, 10), windowSeconds: 1 }], 0);
    expect(limiter.size).toBe(1_000);
    for (let index = 0; index < 600; index += 1) await limiter.consume([rpm('steady', 1_000_000)], 5_000 + index);
    expect(limiter.size).toBe(1);
  });

  it('allocates nothing for refused calls', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.consume([rpm('full', 1)], 0);
    for (let index = 0; index < 100; index += 1) await limiter.consume([rpm('full', 1), rpm(`new:${index}`, 5)], 1);
    expect(limiter.size).toBe(1);
  });

  it('throws on a malformed check, which is a caller bug rather than a limit', async () => {
    const limiter = new MemoryRateLimiter();
    await expect(limiter.consume([rpm('x', 1, -1)], 0)).rejects.toThrow(RangeError);
    await expect(limiter.consume([rpm('x', 1, 1.5)], 0)).rejects.toThrow(RangeError);
    await expect(limiter.consume([{ ...rpm('x', 1), windowSeconds: 0 }], 0)).rejects.toThrow(RangeError);
    await expect(limiter.adjust({ key: '', windowSeconds: 60 }, 1, 0)).rejects.toThrow(RangeError);
  });
});
