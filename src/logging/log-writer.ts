import type { LogRow } from '../storage/logs-repository.js';
import { claimLogRowsAfterMs } from './recover-lost-log-rows.js';

/** Where batches of rows go: the logs repository, or the embedded database's group commit. */
export interface LogRowSink {
  insertMany(rows: LogRow[]): Promise<void>;
  /**
   * Writes rows of which some waited so long that another node may have written them back from their
   * settlements: a row is left out when its reservation's row was claimed or its request has a row, and
   * the rows written claim their reservations, in one transaction (insert-log-rows-once.ts). `now`: the
   * claim's time.
   */
  insertManyOnce(rows: LogRow[], now: number): Promise<void>;
}

export interface LogWriter {
  write(row: LogRow): void;
  /** Writes what is waiting now, rows waiting for a retry included (whatever the backoff says). */
  flush(): Promise<void>;
  /** Writes what waits; resolves with how many rows this writer gave up on in its life (0: every row written). */
  close(): Promise<number>;
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
  /**
   * Rows kept while the database does not take them (down, or its answer lost); past this many the
   * oldest are dropped (`onDropped`). Default 100 000 (a few hundred bytes to a few kB each).
   */
  maxUnwrittenRows?: number;
  /** Longest wait between two tries while writes fail; the first is `flushIntervalMs`. Default 30 s. */
  maxRetryDelayMs?: number;
  /** Hears each failed write (at most one per try, and tries back off while they fail). */
  onError(error: unknown): void;
  /** Hears rows given up on, and why. Without it they are told to `onError`. */
  onDropped?(rows: number, reason: string): void;
  /**
   * The clock the rows' times are read on (unix ms), which tells the rows old enough to be written once
   * (the gateway's, which its tests set). Default Date.now. The backoff between tries keeps Date.now.
   */
  now?: () => number;
}

const defaultMaxUnwrittenRows = 100_000;
const defaultMaxRetryDelayMs = 30_000;

/**
 * Log rows are written in batches off the hot path; close() drains what is buffered, so a clean
 * shutdown loses nothing the database takes.
 *
 * A write that fails (the database down, or its answer lost) keeps its rows, and only those: the slices of
 * a batch written before it are not written again. They are tried again with the rows that arrived since,
 * after `flushIntervalMs`, then at doubling intervals up to `maxRetryDelayMs`, for as long as the process
 * lives (as the settles of the settle retry queue are), and once more each at close(). Meanwhile new rows
 * join them without a write of their own (one try per interval, not one per batch), up to
 * `maxUnwrittenRows`: past it the oldest are dropped, and counted to `onDropped` at the next try.
 *
 * A row that can never be written (the database refuses it) must not hold the others back: a slice that
 * fails while the database takes other rows (an earlier slice of the same try, or when the first fails,
 * the newest slice waiting, tried once as a probe) is written again row by row, and a row that then
 * fails twice right after the database took another row is dropped (`onDropped`, with its request id
 * and the error). Two failures before it took one stop the try: the database is taken to be down.
 * (Should it go down in the middle of that search, at most one row is dropped for it.) A write whose
 * answer was lost after it committed is written again: nothing tells it from one that did not commit.
 *
 * A slice holding a row whose request finished over `claimLogRowsAfterMs` ago goes through the sink's
 * `insertManyOnce`: the rows of a node cut off from the database for hours, which another node took for
 * dead and wrote back from their settlements (recover-lost-log-rows.ts), are not written a second time
 * (and such a slice's lost answer writes nothing twice either). A live node's rows are seconds old: they
 * are one plain INSERT, as before; what the choice costs is a look at each row's two numbers.
 */
export function createLogWriter(logs: LogRowSink, options: LogWriterOptions): LogWriter {
  const now = options.now ?? (() => Date.now());
  const maxUnwritten = options.maxUnwrittenRows ?? defaultMaxUnwrittenRows;
  const maxDelayMs = Math.max(options.maxRetryDelayMs ?? defaultMaxRetryDelayMs, options.flushIntervalMs);
  const reportDropped = options.onDropped ?? ((rows: number, reason: string) => options.onError(new Error(`${rows} log row(s) dropped: ${reason}`)));
  let droppedInAll = 0;
  const onDropped = (rows: number, reason: string) => {
    droppedInAll += rows;
    reportDropped(rows, reason);
  };
  let buffer: LogRow[] = [];
  /** Rows a write failed for, and rows that arrived while those wait for their next try; oldest first. */
  let unwritten: LogRow[] = [];
  /** When the rows in `unwritten` are tried again (by the interval or a full batch). */
  let retryAt = 0;
  let delayMs = options.flushIntervalMs;
  /** Rows dropped past `maxUnwritten` and not reported yet. */
  let overflowed = 0;
  let flushing: Promise<void> = Promise.resolve();
  /** A flush queued behind the one under way: later calls join it instead of queueing one each. */
  let queued: { force: boolean } | undefined;
  let turnFlushScheduled = false;
  const timer = setInterval(() => void flush(false), options.flushIntervalMs);
  timer.unref();

  function flush(force: boolean): Promise<void> {
    if (queued !== undefined) {
      queued.force ||= force;
      return flushing;
    }
    const request = { force };
    queued = request;
    flushing = flushing.then(async () => {
      queued = undefined;
      await run(request.force);
    });
    return flushing;
  }

  async function run(force: boolean): Promise<void> {
    if (unwritten.length > 0 && !force && Date.now() < retryAt) {
      // Backing off: the rows wait with the others instead of trying the database once per batch.
      keep(buffer);
      buffer = [];
      return;
    }
    if (unwritten.length === 0 && buffer.length === 0) return;
    const batch = unwritten.length === 0 ? buffer : buffer.length === 0 ? unwritten : unwritten.concat(buffer);
    buffer = [];
    unwritten = [];
    const failed = await writeAll(batch);
    if (failed === undefined) {
      delayMs = options.flushIntervalMs;
    } else {
      keep(failed);
      retryAt = Date.now() + delayMs;
      delayMs = Math.min(delayMs * 2, maxDelayMs);
    }
    reportOverflow();
  }

  /** Writes `batch` in slices; resolves with the rows to try again (in their order), if any. */
  async function writeAll(batch: LogRow[]): Promise<LogRow[] | undefined> {
    let wrote = false;
    /** Rows from here on were written by the probe. */
    let end = batch.length;
    for (let start = 0; start < end; start += options.maxBatch) {
      const stop = Math.min(start + options.maxBatch, end);
      const slice = start === 0 && stop === batch.length ? batch : batch.slice(start, stop);
      try {
        await insert(slice);
        wrote = true;
        continue;
      } catch (error) {
        options.onError(error);
      }
      if (!wrote) {
        // Nothing taken yet in this try: the database is down, or it refuses a row of this slice. The
        // newest rows tell which (so a try while it is down costs two statements, not one).
        const probeStart = Math.max(stop, end - options.maxBatch);
        if (probeStart === end || !(await written(batch.slice(probeStart, end)))) return batch.slice(start, end);
        end = probeStart;
      }
      // The database takes rows, but not this slice: find the rows it refuses.
      const kept = await writeOneByOne(slice);
      if (kept !== undefined) return kept.concat(batch.slice(stop, end));
    }
    return undefined;
  }

  /** One statement (or group-commit operation) for `rows`: through the claims when one of them is old. */
  function insert(rows: LogRow[]): Promise<void> {
    const at = now();
    return finishedBefore(rows, at - claimLogRowsAfterMs) ? logs.insertManyOnce(rows, at) : logs.insertMany(rows);
  }

  async function written(rows: LogRow[]): Promise<boolean> {
    try {
      await insert(rows);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Writes `slice` row by row. A row that fails before the database took one of them is set aside until
   * it does (two such failures: down, stop, resolve with the rows to keep); a row that fails right after
   * it took one is tried once more, then dropped (and the next needs the database to take one again).
   */
  async function writeOneByOne(slice: LogRow[]): Promise<LogRow[] | undefined> {
    let took = false;
    let aside: LogRow | undefined;
    for (let index = 0; index < slice.length; index += 1) {
      const row = slice[index] as LogRow;
      if ((await writeRow(row)) === undefined) {
        took = true;
        if (aside !== undefined) took = await writeOrDrop(aside);
        aside = undefined;
      } else if (took) {
        took = await writeOrDrop(row);
      } else if (aside === undefined) {
        aside = row;
      } else {
        return [aside, ...slice.slice(index)];
      }
    }
    return aside === undefined ? undefined : [aside];
  }

  /** One more try of a row that failed right after the database took another; false if it was dropped. */
  async function writeOrDrop(row: LogRow): Promise<boolean> {
    const error = await writeRow(row);
    if (error === undefined) return true;
    onDropped(1, `the database refused the row of request ${row.request_id} twice while it took others: ${String(error)}`);
    return false;
  }

  async function writeRow(row: LogRow): Promise<unknown> {
    try {
      await insert([row]);
      return undefined;
    } catch (error) {
      return error ?? new Error('insert failed');
    }
  }

  /** Adds rows to those waiting for a retry, dropping the oldest past the cap. */
  function keep(rows: LogRow[]): void {
    if (rows.length === 0) return;
    unwritten = unwritten.length === 0 ? rows : unwritten.concat(rows);
    const over = unwritten.length - maxUnwritten;
    if (over > 0) {
      unwritten = unwritten.slice(over);
      overflowed += over;
    }
  }

  function reportOverflow(): void {
    if (overflowed === 0) return;
    onDropped(overflowed, `more than ${maxUnwritten} were waiting for the database to take them`);
    overflowed = 0;
  }

  return {
    write(row) {
      buffer.push(row);
      if (buffer.length >= options.maxBatch) void flush(false);
      else if (options.turnFlushRows !== undefined && buffer.length >= options.turnFlushRows && !turnFlushScheduled) {
        turnFlushScheduled = true;
        setImmediate(() => {
          turnFlushScheduled = false;
          void flush(false);
        });
      }
    },
    flush: () => flush(true),
    async close() {
      clearInterval(timer);
      await flush(true);
      if (unwritten.length > 0) await flush(true);
      if (unwritten.length > 0) {
        overflowed += unwritten.length;
        onDropped(overflowed, 'the database did not take them before shutdown');
        overflowed = 0;
        unwritten = [];
      } else reportOverflow();
      return droppedInAll;
    },
  };
}

/**
 * Whether a row's request finished before `cutoff`: its start plus its latency, the time its row was made
 * — right after its settle (a settle retried in the background: the time it first failed, earlier still).
 */
function finishedBefore(rows: LogRow[], cutoff: number): boolean {
  for (const row of rows) if (row.created_at + row.latency_ms < cutoff) return true;
  return false;
}
