import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RetriedWrites, type RetrySchedule } from './retried-writes.js';

const schedule: RetrySchedule = { firstDelayMs: 500, maxDelayMs: 30_000, tries: 12 };

/** A write that fails while the database is down; records when each try was made, and what it was told. */
function flakyWrite(outcomes: (() => 'again' | undefined)[] = []) {
  let reachable = false;
  const tries: number[] = [];
  const errors: number[] = [];
  const givenUp: number[] = [];
  return {
    tries,
    errors,
    givenUp,
    up: () => (reachable = true),
    write: {
      write: async (): Promise<void | 'again'> => {
        tries.push(Date.now());
        if (!reachable) throw new Error('Connection terminated unexpectedly');
        return outcomes.shift()?.();
      },
      onError: () => void errors.push(Date.now()),
      onGiveUp: () => void givenUp.push(Date.now()),
    },
  };
}

describe('RetriedWrites', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  it('tries a write at once, then after the first delay, doubling up to the maximum, as many tries as the schedule has', async () => {
    const writes = new RetriedWrites(schedule);
    const write = flakyWrite();
    writes.start(write.write);
    await vi.runAllTimersAsync();
    expect(write.tries).toEqual([0, 500, 1500, 3500, 7500, 15500, 31500, 61500, 91500, 121500, 151500, 181500]);
    expect(write.givenUp).toEqual([181500]);
  });

  it('after its caller saw it fail, waits the first delay, then doubles each wait from there', async () => {
    const writes = new RetriedWrites(schedule);
    const write = flakyWrite();
    writes.start(write.write, true);
    await vi.advanceTimersByTimeAsync(0.5e3 + 1e3 + 2e3 + 4e3);
    expect(write.tries).toEqual([500, 1500, 3500, 7500]);
    write.up();
    await vi.runAllTimersAsync();
    expect({ tries: write.tries, errors: write.errors.length, givenUp: write.givenUp }).toEqual({ tries: [500, 1500, 3500, 7500, 15500], errors: 4, givenUp: [] });
  });

  it('makes a write that asks for it once more on the schedule, without a failure, until close', async () => {
    const writes = new RetriedWrites({ ...schedule, tries: Infinity });
    const write = flakyWrite([() => 'again', () => 'again', () => undefined]);
    write.up();
    writes.start(write.write, true);
    await vi.runAllTimersAsync();
    expect({ tries: write.tries, errors: write.errors }).toEqual({ tries: [500, 1500, 3500], errors: [] });

    const closing = flakyWrite([() => 'again', () => 'again']);
    closing.up();
    writes.start(closing.write, true);
    await vi.advanceTimersByTimeAsync(500);
    await writes.close();
    await vi.runAllTimersAsync();
    expect(closing.tries, 'asked again, tried once more at close, and done').toEqual([4000, 4000]);
  });

  it('after close, tries a write handed to it at once and once, even after a failure its caller saw', async () => {
    const writes = new RetriedWrites(schedule);
    await writes.close();
    const write = flakyWrite();
    writes.start(write.write, true);
    await vi.advanceTimersByTimeAsync(0);
    expect({ tries: write.tries, givenUp: write.givenUp }).toEqual({ tries: [0], givenUp: [0] });
    await vi.runAllTimersAsync();
    expect(write.tries).toHaveLength(1);
  });

  it('waits for the tries at close at most its bound', async () => {
    const writes = new RetriedWrites(schedule);
    writes.start({ write: () => new Promise<void>(() => undefined), onError: () => undefined });
    let closed = false;
    const closing = writes.close(2000).then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(1999);
    expect(closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await closing;
    expect(closed).toBe(true);
  });
});
