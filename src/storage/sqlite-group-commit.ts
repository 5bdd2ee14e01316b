import type { Database as SqliteConnection } from 'better-sqlite3';

interface QueuedOperation {
  run(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Transactions of this operation refused with SQLITE_BUSY so far. */
  busyRetries?: number;
}

/** A transaction refused with SQLITE_BUSY is retried this often, this far apart, before its operations fail. */
const maxBusyRetries = 100;
const busyRetryDelayMs = 10;

/** SQLITE_BUSY and its extended codes: the transaction did not happen (better-sqlite3 rolled back what began). */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Operations per transaction; the rest wait for the next flush, so one flush stays short. */
export const defaultMaxBatch = 256;

/**
 * How long an operation queued with `runWithNext` waits for another operation's transaction before it
 * starts one of its own.
 */
export const withNextDelayMs = 1;

/**
 * Thrown by an operation that fails the way it declares it can (a short balance, say) AFTER leaving the
 * transaction exactly as it found it — nothing written, or its writes undone by itself. Only that
 * operation's promise is rejected; the rest of the batch goes on in the same transaction.
 */
export class ExpectedFailure extends Error {}

/**
 * Writes that operations leave to the end of their transaction: sums of increments that commute (a
 * settled request's counters, say), written once per transaction instead of once per operation.
 */
export interface DeferredWrites {
  /** Writes what the transaction's operations gathered, inside it, just before COMMIT; then forgets it. */
  write(): void;
  /** Forgets what was gathered: the transaction rolled back (its operations will be run again, or fail). */
  discard(): void;
}

/** An operation of the batch threw something else: the batch's transaction is rolled back, then replayed. */
class UnexpectedFailure {
  constructor(readonly index: number) {}
}

/**
 * Group commit on the embedded SQLite database: the synchronous operations queued during one event-loop
 * turn share ONE write transaction (`BEGIN IMMEDIATE` … `COMMIT`) and run directly in it, one after the
 * other. A commit costs far more than the few statements of a reserve or a settle, so 50 requests in
 * flight pay for one commit instead of 50 (bench/micro/ledger.mjs); and no savepoint per operation (two
 * more statements each) on the happy path.
 *
 * - An operation that throws an ExpectedFailure has undone its own writes (SQLite rolls back a failing
 *   statement by itself, so failing at the first write needs nothing): it alone is rejected.
 * - Any other error: nobody knows what the operation had written, so the whole transaction rolls back and
 *   the batch is replayed — the operations before the faulty one in one transaction, the faulty one alone
 *   in its own (whatever it throws then rejects it, and its transaction rolls back), the rest again as a
 *   batch. Only the faulty operation fails, and every other one takes effect exactly once, because an
 *   operation is a synchronous function of the database state (it must not have other side effects: it
 *   may run more than once, only its last run is committed).
 * - A promise settles only after the COMMIT of the transaction its operation took effect in: durability
 *   is what one transaction per operation gave.
 * - If the transaction itself is lost (COMMIT fails, or an error made SQLite roll back everything), every
 *   operation of that transaction is rejected: none of them was committed.
 * - The flush waits while the shared connection is inside another transaction (the query builder's
 *   transactions span awaits), exactly as a direct call had to.
 * - A transaction refused with SQLITE_BUSY — which SQLite can return without waiting out busy_timeout,
 *   e.g. while another connection checkpoints — committed nothing: its operations are queued again and
 *   retried shortly (up to a second), then rejected.
 * - Deferred writes (addDeferredWrites) are written at the end of every transaction, before COMMIT, and
 *   discarded whenever a transaction rolls back; a failure while writing them loses the transaction.
 * - An operation nobody waits for in a hurry (a settle after its answer went out, log rows) can be queued
 *   with `runWithNext`: it starts no transaction of its own at the end of the turn, but joins the next
 *   one that `run` starts, or starts one after `withNextDelayMs`. With one request at a time, a request's
 *   settle then shares the next request's reserve transaction (the same token and user pages, one set of
 *   locks) instead of paying for a commit of its own.
 */
export class SqliteGroupCommit {
  private queue: QueuedOperation[] = [];
  private scheduled = false;
  /** Re-armed with refresh(), so that a queue of `runWithNext` operations costs no new timer each. */
  private withNextTimer: NodeJS.Timeout | undefined;
  private withNextArmed = false;
  private readonly batchTransaction;
  private readonly aloneTransaction;
  private readonly deferred: DeferredWrites[] = [];

  constructor(
    private readonly connection: SqliteConnection,
    private readonly maxBatch = defaultMaxBatch,
  ) {
    this.batchTransaction = connection.transaction((batch: QueuedOperation[]): Outcome[] => {
      const outcomes = batch.map((operation, index) => this.runInBatch(operation, index));
      this.writeDeferred();
      return outcomes;
    });
    this.aloneTransaction = connection.transaction((operation: QueuedOperation): unknown => {
      const value = operation.run();
      this.writeDeferred();
      return value;
    });
  }

  /** Registers writes that this connection's operations defer to the end of their transaction. */
  addDeferredWrites(writes: DeferredWrites): void {
    this.deferred.push(writes);
  }

  /**
   * Runs `operation` (synchronous; a function of the database state, as it may run more than once) in the
   * next batch; settles after the commit. It throws an ExpectedFailure only after undoing its own writes.
   */
  run<T>(operation: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: operation, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /**
   * As `run`, but the operation joins the next transaction that another operation starts, and starts one
   * itself only after `withNextDelayMs`: for work whose commit nobody waits on in a hurry.
   */
  runWithNext<T>(operation: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: operation, resolve: resolve as (value: unknown) => void, reject });
      this.scheduleWithNext();
    });
  }

  private scheduleWithNext(): void {
    if (this.scheduled || this.withNextArmed) return;
    this.withNextArmed = true;
    if (this.withNextTimer === undefined) {
      this.withNextTimer = setTimeout(() => {
        this.withNextArmed = false;
        if (this.queue.length > 0) this.schedule();
      }, withNextDelayMs);
    } else {
      this.withNextTimer.refresh();
    }
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
    this.commit(batch);
  }

  /** Commits `batch` in one transaction, or — after an unexpected error — in the fewest that isolate it. */
  private commit(batch: QueuedOperation[]): void {
    let rest = batch;
    while (rest.length > 0) {
      const faulty = this.commitTogether(rest);
      if (faulty === undefined) return;
      // Rerun before the faulty one: the same state as the first time, so the same outcomes.
      this.commit(rest.slice(0, faulty));
      this.commitAlone(rest[faulty] as QueuedOperation);
      rest = rest.slice(faulty + 1);
    }
  }

  /** One transaction for the whole batch; returns the index of an operation that failed unexpectedly. */
  private commitTogether(batch: QueuedOperation[]): number | undefined {
    // Alone in its transaction, whatever an operation throws is rolled back with the transaction.
    if (batch.length === 1) return this.commitAlone(batch[0] as QueuedOperation);
    let outcomes: Outcome[];
    try {
      outcomes = this.batchTransaction.immediate(batch);
    } catch (error) {
      this.discardDeferred();
      if (error instanceof UnexpectedFailure) return error.index;
      if (isBusy(error)) return this.retryLater(batch, error);
      return this.rejectAll(batch, error);
    }
    outcomes.forEach((outcome, index) => {
      const operation = batch[index] as QueuedOperation;
      if (outcome.ok) operation.resolve(outcome.value);
      else operation.reject(outcome.error);
    });
    return undefined;
  }

  private commitAlone(operation: QueuedOperation): undefined {
    let value: unknown;
    try {
      value = this.aloneTransaction.immediate(operation);
    } catch (error) {
      this.discardDeferred();
      if (isBusy(error)) return this.retryLater([operation], error);
      operation.reject(error);
      return;
    }
    operation.resolve(value);
  }

  private runInBatch(operation: QueuedOperation, index: number): Outcome {
    try {
      return { ok: true, value: operation.run() };
    } catch (error) {
      // Some errors (SQLITE_FULL, SQLITE_IOERR, RAISE(ROLLBACK), …) roll back the whole transaction;
      // going on would run the next operations outside it. Abort: the batch is rejected.
      if (!this.connection.inTransaction) throw error;
      if (error instanceof ExpectedFailure) return { ok: false, error };
      // Thrown out of the transaction function: better-sqlite3 rolls the transaction back.
      throw new UnexpectedFailure(index);
    }
  }

  private writeDeferred(): void {
    for (const writes of this.deferred) writes.write();
  }

  private discardDeferred(): void {
    for (const writes of this.deferred) writes.discard();
  }

  /** Back to the front of the queue for a later flush; an operation refused too often fails with `error`. */
  private retryLater(batch: QueuedOperation[], error: unknown): undefined {
    const again = batch.filter((operation) => {
      operation.busyRetries = (operation.busyRetries ?? 0) + 1;
      if (operation.busyRetries <= maxBusyRetries) return true;
      operation.reject(error);
      return false;
    });
    if (again.length === 0) return undefined;
    this.queue.unshift(...again);
    setTimeout(() => this.schedule(), busyRetryDelayMs);
    return undefined;
  }

  private rejectAll(batch: QueuedOperation[], error: unknown): undefined {
    for (const operation of batch) operation.reject(error);
    return undefined;
  }
}
