import { afterEach, describe, expect, it, vi } from 'vitest';
import { StreamKeepAlive } from './stream-keepalive.js';

afterEach(() => vi.useRealTimers());

function target() {
  const stream = { writes: 0, pings: 0, ping: () => (stream.pings += 1) };
  return stream;
}

describe('StreamKeepAlive', () => {
  it('pings a stream silent for a whole period, not one that wrote in it', () => {
    vi.useFakeTimers();
    const keepAlive = new StreamKeepAlive(1000);
    const silent = target();
    const busy = target();
    keepAlive.watch(silent);
    keepAlive.watch(busy);
    for (let second = 0; second < 3; second += 1) {
      busy.writes += 1;
      vi.advanceTimersByTime(1000);
    }
    expect(silent.pings).toBe(3);
    expect(busy.pings).toBe(0);
  });

  it('stops pinging once unwatched; close() stops its one timer', () => {
    vi.useFakeTimers();
    const keepAlive = new StreamKeepAlive(1000);
    const stream = target();
    const stop = keepAlive.watch(stream);
    vi.advanceTimersByTime(1000);
    stop();
    vi.advanceTimersByTime(5000);
    expect(stream.pings).toBe(1);
    expect(keepAlive.size).toBe(0);
    keepAlive.watch(target())();
    expect(vi.getTimerCount()).toBe(1);
    keepAlive.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does nothing with a period of 0', () => {
    vi.useFakeTimers();
    const keepAlive = new StreamKeepAlive(0);
    const stream = target();
    keepAlive.watch(stream)();
    vi.advanceTimersByTime(60_000);
    expect(stream.pings).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
