import { describe, expect, it } from 'vitest';
import type { LogRow } from '../storage/logs-repository.js';
import { createLogWriter, type LogRowSink } from './log-writer.js';

const row = (requestId: string) => ({ request_id: requestId }) as LogRow;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function recordingSink(): LogRowSink & { batches: string[][] } {
  const batches: string[][] = [];
  return {
    batches,
    async insertMany(rows) {
      batches.push(rows.map((r) => r.request_id));
    },
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

  it('retries a failed batch once with the next one and reports the error', async () => {
    const errors: unknown[] = [];
    const batches: string[][] = [];
    let failures = 1;
    const writer = createLogWriter(
      {
        async insertMany(rows) {
          if (failures-- > 0) throw new Error('disk full');
          batches.push(rows.map((r) => r.request_id));
        },
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
});
