import type { Database as SqliteConnection } from 'better-sqlite3';

interface QueuedOperation {
  run(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Operations per transaction; the rest wait for the next flush, so one flush stays short. */
export const defaultMaxBatch = 256;

/**
 * Group commit on the embedded SQLite database: the synchronous operations queued during one event-loop
 * turn share ONE write transaction (`BEGIN IMMEDIATE` … `COMMIT`), each in a savepoint of its own. A
 * commit costs far more than the few statements of a reserve or a settle, so 50 requests in flight pay
 * for one commit instead of 50 (bench/micro/ledger.mjs).
 *
 * - An operation that throws rolls back its own savepoint and rejects only its own promise.
 * - A promise settles only after the COMMIT: durability is what one transaction per operation gave.
 * - If the transaction itself is lost (COMMIT fails, or an error made SQLite roll back everything), every
 *   operation of the batch is rejected: none of them was committed.
 * - The flush waits while the shared connection is inside another transaction (the query builder's
 *   transactions span awaits), exactly as a direct call had to.
 */
export class SqliteGroupCommit {
  private queue: QueuedOperation[] = [];
  private scheduled = false;
  private readonly inSavepoint;
  private readonly batchTransaction;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly maxBatch = defaultMaxBatch,
  ) {
    // Called inside the batch's transaction, better-sqlite3 runs a transaction function as a SAVEPOINT.
    this.inSavepoint = connection.transaction((operation: QueuedOperation) => operation.run());
    this.batchTransaction = connection.transaction((batch: QueuedOperation[]): Outcome[] => {
      // Alone in its transaction, an operation needs no savepoint: if it throws, the transaction rolls back.
      if (batch.length === 1) return [{ ok: true, value: (batch[0] as QueuedOperation).run() }];
      return batch.map((operation) => this.runOne(operation));
    });
  }

  /** Runs `operation` (synchronous, atomic in its savepoint) in the next batch; settles after the commit. */
  run<T>(operation: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: operation, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate, not a microtask: everything that arrives in this poll phase joins the batch.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    if (!this.connection.open) return this.rejectAll(this.queue.splice(0), new TypeError('The database connection is not open'));
    if (this.connection.inTransaction) return this.schedule();
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0) this.schedule();
    let outcomes: Outcome[];
    try {
      outcomes = this.batchTransaction.immediate(batch);
    } catch (error) {
      return this.rejectAll(batch, error);
    }
    outcomes.forEach((outcome, index) => {
      const operation = batch[index] as QueuedOperation;
      if (outcome.ok) operation.resolve(outcome.value);
      else operation.reject(outcome.error);
    });
  }

  private runOne(operation: QueuedOperation): Outcome {
    try {
      return { ok: true, value: this.inSavepoint(operation) };
    } catch (error) {
      // Some errors (SQLITE_FULL, SQLITE_IOERR, …) roll back the whole transaction, not just the
      // savepoint; going on would run the next operations outside it. Abort: the batch is rejected.
      if (!this.connection.inTransaction) throw error;
      return { ok: false, error };
    }
  }

  private rejectAll(batch: QueuedOperation[], error: unknown): void {
    for (const operation of batch) operation.reject(error);
  }
}
