import { afterEach, describe, expect, it, vi } from 'vitest';
import { StreamKeepAlive } from './stream-keepalive.js';

afterEach(() => vi.useRealTimers());

function target() {
  const stream = { writes: 0, pings: 0, keepAliveIndex: -1, writesAtTick: 0, ping: () => (stream.pings += 1) };
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

  it('keeps its list whole when streams leave out of order', () => {
    vi.useFakeTimers();
    const keepAlive = new StreamKeepAlive(1000);
    const streams = [target(), target(), target(), target()];
    for (const stream of streams) keepAlive.watch(stream);
    keepAlive.unwatch(streams[1]!);
    keepAlive.unwatch(streams[0]!);
    keepAlive.unwatch(streams[0]!);
    expect(keepAlive.size).toBe(2);
    vi.advanceTimersByTime(1000);
    expect(streams.map((stream) => stream.pings)).toEqual([0, 0, 1, 1]);
    keepAlive.unwatch(streams[3]!);
    keepAlive.unwatch(streams[2]!);
    expect(keepAlive.size).toBe(0);
    keepAlive.close();
  });

  it('stops pinging once unwatched; close() stops its one timer', () => {
    vi.useFakeTimers();
    const keepAlive = new StreamKeepAlive(1000);
    const stream = target();
    keepAlive.watch(stream);
    vi.advanceTimersByTime(1000);
    keepAlive.unwatch(stream);
    vi.advanceTimersByTime(5000);
    expect(stream.pings).toBe(1);
    expect(keepAlive.size).toBe(0);
    const another = target();
    keepAlive.watch(another);
    keepAlive.unwatch(another);
    expect(vi.getTimerCount()).toBe(1);
    keepAlive.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does nothing with a period of 0', () => {
    vi.useFakeTimers();
    const keepAlive = new StreamKeepAlive(0);
    const stream = target();
    keepAlive.watch(stream);
    vi.advanceTimersByTime(60_000);
    expect(stream.pings).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
