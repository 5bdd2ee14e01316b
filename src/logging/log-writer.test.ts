import { describe, expect, it, vi } from 'vitest';
import type { LogRow } from '../storage/logs-repository.js';
import { createLogWriter, type LogRowSink } from './log-writer.js';
import { claimLogRowsAfterMs, foreignSettlementGraceMs } from './recover-lost-log-rows.js';

const row = (requestId: string) => ({ request_id: requestId }) as LogRow;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
/** The sinks below are given rows with no times: none is old enough to be written through the claims. */
const noOldRows = () => Promise.reject(new Error('no row here is old'));

function recordingSink(): LogRowSink & { batches: string[][] } {
  const batches: string[][] = [];
  return {
    batches,
    async insertMany(rows) {
      batches.push(rows.map((r) => r.request_id));
    },
    insertManyOnce: noOldRows,
  };
}

describe('createLogWriter', () => {
  it('with an interval keeps rows until the interval or a full batch', async () => {
    const sink = recordingSink();
    const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 2, onError: () => {} });
    writer.write(row('a'));
    await nextTurn();
    await nextTurn();
    expect(sink.batches).toEqual([]);
    writer.write(row('b'));
    await writer.flush();
    writer.write(row('c'));
    await writer.close();
    expect(sink.batches).toEqual([['a', 'b'], ['c']]);
  });

  it('with turnFlushRows hands the rows to the sink at the end of the turn in which that many are waiting', async () => {
    const sink = recordingSink();
    const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 100, turnFlushRows: 2, onError: () => {} });
    writer.write(row('a'));
    await nextTurn();
    await nextTurn();
    // One row is not enough: it waits for more, the interval or the batch.
    expect(sink.batches).toEqual([]);
    writer.write(row('b'));
    writer.write(row('c'));
    expect(sink.batches).toEqual([]);
    await nextTurn();
    await nextTurn();
    expect(sink.batches).toEqual([['a', 'b', 'c']]);
    await writer.close();
  });

  it('keeps a failed batch for the next flush, writes it with the rows that came since, and reports the error', async () => {
    const errors: unknown[] = [];
    const batches: string[][] = [];
    let failures = 1;
    const writer = createLogWriter(
      {
        async insertMany(rows) {
          if (failures-- > 0) throw new Error('disk full');
          batches.push(rows.map((r) => r.request_id));
        },
        insertManyOnce: noOldRows,
      },
      { flushIntervalMs: 60_000, maxBatch: 100, onError: (error) => errors.push(error) },
    );
    writer.write(row('a'));
    await writer.flush();
    expect(errors).toHaveLength(1);
    writer.write(row('b'));
    await writer.close();
    expect(errors).toHaveLength(1);
    expect(batches).toEqual([['a', 'b']]);
  });

  it('writes again only the slices that failed: a batch of 150 whose second slice fails ends as 150 rows, each once', async () => {
    // Down from the second slice on (its rows tried alone twice too, then the try stops).
    const sink = scriptedSink((call) => call >= 2 && call <= 4);
    const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 100, onError: () => {} });
    for (const id of ids('a', 150)) writer.write(row(id));
    await writer.flush();
    expect(sink.written).toHaveLength(100);
    await writer.flush();
    await writer.close();
    expect(sink.written.toSorted()).toEqual(ids('a', 150).toSorted());
  });

  it('keeps failed rows, and those that join them, through any number of failed tries until the database takes them', async () => {
    // Down for five tries: the rows of before and during the outage are all written once it is back.
    const sink = scriptedSink((call) => call <= 5);
    const errors: unknown[] = [];
    const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 100, onError: (error) => errors.push(error) });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      writer.write(row(`r${attempt}`));
      await writer.flush();
    }
    expect(errors).toHaveLength(5);
    expect(sink.written).toEqual([]);
    await writer.flush();
    await writer.close();
    expect(sink.written).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  });

  it('backs off while writes fail: tries after the interval, then at doubling intervals, and full batches make no try of their own', async () => {
    vi.useFakeTimers();
    try {
      let down = true;
      const sink = scriptedSink(() => down);
      const tries: number[] = [];
      const writer = createLogWriter(sink, { flushIntervalMs: 500, maxBatch: 10, maxRetryDelayMs: 2_000, onError: () => tries.push(Date.now()) });
      const t0 = Date.now();
      for (const id of ids('a', 10)) writer.write(row(id));
      await vi.advanceTimersByTimeAsync(0);
      for (const id of ids('b', 30)) writer.write(row(id));
      await vi.advanceTimersByTimeAsync(5_000);
      // The full batch at 0, then after 0.5 s, 1 s, 2 s, 2 s (the most): three more full batches made none.
      expect(tries.map((at) => at - t0)).toEqual([0, 500, 1500, 3500]);
      down = false;
      await vi.advanceTimersByTimeAsync(2_000);
      expect(tries).toHaveLength(4);
      expect(sink.written.toSorted()).toEqual([...ids('a', 10), ...ids('b', 30)].toSorted());
      await writer.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('loses nothing when the database goes down between two slices of a try', async () => {
    let down = false;
    const sink: LogRowSink & { written: string[] } = {
      written: [],
      async insertMany(rows) {
        if (down) throw new Error('connection lost');
        sink.written.push(...rows.map((r) => r.request_id));
        down = true;
      },
      insertManyOnce: noOldRows,
    };
    const dropped: number[] = [];
    const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 10, onError: () => {}, onDropped: (rows) => dropped.push(rows) });
    for (const id of ids('a', 25)) writer.write(row(id));
    await writer.flush();
    expect(sink.written).toEqual(ids('a', 10));
    down = false;
    await writer.flush(); // takes one slice, then fails again
    down = false;
    await writer.flush();
    expect(await writer.close(), 'close says every row was written').toBe(0);
    expect(sink.written).toEqual(ids('a', 25));
    expect(dropped).toEqual([]);
  });

  it('past maxUnwrittenRows drops the oldest rows waiting and says how many', async () => {
    let down = true;
    const sink = scriptedSink(() => down);
    const dropped: [number, string][] = [];
    const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 10, maxUnwrittenRows: 10, onError: () => {}, onDropped: (rows, reason) => dropped.push([rows, reason]) });
    for (const id of ids('a', 10)) writer.write(row(id));
    await writer.flush(); // fails: a-0…a-9 wait
    for (const id of ids('b', 5)) writer.write(row(id));
    await writer.flush(); // fails again (and the probe with the newest rows): of the 15 rows, the 5 oldest are dropped
    expect(dropped).toEqual([[5, 'more than 10 were waiting for the database to take them']]);
    down = false;
    expect(await writer.close(), 'close counts the rows given up on in the writer\'s life').toBe(5);
    expect(sink.written).toEqual([...ids('a', 10).slice(5), ...ids('b', 5)]);
    expect(dropped).toEqual([[5, 'more than 10 were waiting for the database to take them']]);
  });

  it('a row the database refuses does not hold the others back: it alone is dropped, the others are written once', async () => {
    const sink = scriptedSink((_call, rows) => rows.some((r) => r.request_id === 'bad'));
    const dropped: string[] = [];
    const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 10, onError: () => {}, onDropped: (_rows, reason) => dropped.push(reason) });
    // In the first slice of a try: the newest rows, taken, tell the database is up.
    for (const id of ['bad', ...ids('a', 24)]) writer.write(row(id));
    await writer.flush();
    expect(sink.written.toSorted()).toEqual(ids('a', 24).toSorted());
    expect(dropped).toEqual([expect.stringContaining('request bad')]);
    // In a later slice of a try.
    for (const id of [...ids('c', 13), 'bad', ...ids('c', 20).slice(13)]) writer.write(row(id));
    await writer.close();
    expect(sink.written.filter((id) => id.startsWith('c')).toSorted()).toEqual(ids('c', 20).toSorted());
    expect(dropped).toHaveLength(2);
  });

  it('writes a slice holding a row whose request finished over half an hour ago through the claims, and fresh slices as before', async () => {
    let clock = 10 * foreignSettlementGraceMs;
    const calls: string[] = [];
    const sink: LogRowSink = {
      async insertMany(rows) {
        calls.push(`plain ${rows.map((r) => r.request_id).join(' ')}`);
      },
      async insertManyOnce(rows, now) {
        calls.push(`once at ${now} ${rows.map((r) => r.request_id).join(' ')}`);
      },
    };
    const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 100, now: () => clock, onError: () => {} });
    // Its request started long ago, but finished (and was settled) a moment ago: a long stream.
    const timed = (requestId: string, finishedAgo: number, latency = 1000) => ({ request_id: requestId, created_at: clock - finishedAgo - latency, latency_ms: latency }) as LogRow;
    writer.write(timed('fresh', 200));
    writer.write(timed('long', 200, 3 * foreignSettlementGraceMs));
    writer.write(timed('just-under', claimLogRowsAfterMs));
    await writer.flush();
    writer.write(timed('new', 100));
    writer.write(timed('held', claimLogRowsAfterMs + 1));
    await writer.flush();
    // The writer's clock moved on while a row waited: its age is read at the try.
    writer.write(timed('waited', 0));
    clock += claimLogRowsAfterMs + 1;
    await writer.flush();
    expect(calls).toEqual(['plain fresh long just-under', `once at ${clock - claimLogRowsAfterMs - 1} new held`, `once at ${clock} waited`]);
    await writer.close();
  });

  it('at close tries what waits once more, and says how many rows the database did not take', async () => {
    const sink = scriptedSink(() => true);
    const dropped: number[] = [];
    const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 100, onError: () => {}, onDropped: (rows) => dropped.push(rows) });
    for (const id of ids('a', 3)) writer.write(row(id));
    await writer.close();
    expect(sink.calls()).toBe(2);
    expect(dropped).toEqual([3]);
  });
});

/** A sink that fails the calls `fails` picks (1-based), recording the request ids of those it takes. */
function scriptedSink(fails: (call: number, rows: LogRow[]) => boolean): LogRowSink & { written: string[]; calls(): number } {
  const written: string[] = [];
  let calls = 0;
  return {
    written,
    calls: () => calls,
    async insertMany(rows) {
      calls += 1;
      if (fails(calls, rows)) throw new Error(`connection lost (call ${calls})`);
      written.push(...rows.map((r) => r.request_id));
    },
    insertManyOnce: noOldRows,
  };
}

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
