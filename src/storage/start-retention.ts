import type { DatabaseHandle } from './create-database.js';
import { deleteLogsBefore, deleteSettledReservations } from './delete-old-rows.js';

const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;

/** Settled reservations are kept this long, then deleted: a day covers any late second settle of a request. */
export const settledReservationRetentionMs = dayMs;

export interface RetentionOptions {
  /** Request log rows older than this many days are deleted; 0 keeps them (read at every run). */
  logRetentionDays: () => number;
  /** Settles reservations left open for over a day by an instance that never came back. */
  recoverStale?: () => Promise<unknown>;
  now: () => number;
  onError: (error: unknown) => void;
  /** Between runs; the first runs `firstRunMs` after the start, off the start-up's path. */
  intervalMs?: number;
  firstRunMs?: number;
}

export interface RetentionRun {
  settledReservations: number;
  logs: number;
}

/** What one run deletes: settled reservations older than a day, and log rows past the log retention. */
export async function runRetention(database: DatabaseHandle, now: number, logRetentionDays: number): Promise<RetentionRun> {
  const settledReservations = await deleteSettledReservations(database.db, database.dialect, now - settledReservationRetentionMs);
  const logs = logRetentionDays > 0 ? await deleteLogsBefore(database.db, database.dialect, now - logRetentionDays * dayMs) : 0;
  return { settledReservations, logs };
}

/**
 * Without it the database only grows: a reservation row and a log row per request. Every gateway process
 * runs it (hourly by default); two at once delete disjoint batches or find nothing left, which is harmless.
 */
export function startRetention(database: DatabaseHandle, options: RetentionOptions): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const run = () => {
    if (stopped || running !== undefined) return;
    running = Promise.resolve()
      .then(() => options.recoverStale?.())
      .catch(options.onError)
      .then(() => runRetention(database, options.now(), options.logRetentionDays()))
      .catch(options.onError)
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, options.firstRunMs ?? 60_000);
  const every = setInterval(run, options.intervalMs ?? hourMs);
  first.unref();
  every.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
