import type { LogRow } from '../storage/logs-repository.js';

/** Where batches of rows go: the logs repository, or the embedded database's group commit. */
export interface LogRowSink {
  insertMany(rows: LogRow[]): Promise<void>;
}

export interface LogWriter {
  write(row: LogRow): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface LogWriterOptions {
  flushIntervalMs: number;
  maxBatch: number;
  /**
   * Also flush at the end of the event-loop turn in which this many rows are waiting: for a sink that
   * costs little per call (the embedded database's group commit, which the rows join). Under load rows
   * then live a few milliseconds and die young; held for a batch of 100 they outlived a scavenge and were
   * copied (~7 µs of CPU per request at 50 connections, BENCHMARKS.md session 7). Not every turn: each
   * commit with log rows rewrites the last page of the logs table and of each of its indexes.
   */
  turnFlushRows?: number;
  onError(error: unknown): void;
}

/**
 * Log rows are written in batches off the hot path; close() drains what is buffered, so a clean
 * shutdown loses nothing. A failed batch is retried once with the next one.
 */
export function createLogWriter(logs: LogRowSink, options: LogWriterOptions): LogWriter {
  let buffer: LogRow[] = [];
  let retry: LogRow[] = [];
  let flushing: Promise<void> = Promise.resolve();
  let turnFlushScheduled = false;
  const timer = setInterval(() => void flush(), options.flushIntervalMs);
  timer.unref();

  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      if (buffer.length === 0 && retry.length === 0) return;
      const batch = [...retry, ...buffer];
      const hadRetry = retry.length > 0;
      buffer = [];
      retry = [];
      try {
        for (let start = 0; start < batch.length; start += options.maxBatch) {
          await logs.insertMany(batch.slice(start, start + options.maxBatch));
        }
      } catch (error) {
        options.onError(error);
        if (!hadRetry) retry = batch;
      }
    });
    return flushing;
  }

  return {
    write(row) {
      buffer.push(row);
      if (buffer.length >= options.maxBatch) void flush();
      else if (options.turnFlushRows !== undefined && buffer.length >= options.turnFlushRows && !turnFlushScheduled) {
        turnFlushScheduled = true;
        setImmediate(() => {
          turnFlushScheduled = false;
          void flush();
        });
      }
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
      if (retry.length > 0) await flush();
    },
  };
}
