import type { Reservation, ReserveOutcome, SettleOutcome } from './quota-ledger.js';

/** A reserve as the routines take it: the amount already checked; `now` is unix milliseconds. */
export interface ReserveCall extends Reservation {
  now: number;
}

/** A settle as the routines take it: the amount already checked, the channel or null. */
export interface SettleCall {
  reservationId: string;
  actual: number;
  channelId: number | null;
  now: number;
}

export interface LedgerBatch {
  reserves: ReserveCall[];
  settles: SettleCall[];
}

/** One answer per call, in the batch's order. */
export interface LedgerBatchAnswer {
  reserves: ReserveOutcome[];
  settles: SettleOutcome[];
}

/** How the calls reach the database: all of them in one transaction, or one on its own. */
export interface LedgerCalls {
  batch(batch: LedgerBatch): Promise<LedgerBatchAnswer>;
  reserve(call: ReserveCall): Promise<ReserveOutcome>;
  settle(call: SettleCall): Promise<SettleOutcome>;
}

export interface LedgerCallBatcherOptions {
  /** Batches sent and not yet answered; calls that arrive meanwhile wait for the next one. */
  maxInFlight: number;
  /** Calls per batch; the rest go in the next. */
  maxCalls: number;
  /**
   * Whether a batch's failure certainly left nothing committed (the server answered with an error, so its
   * transaction rolled back): its calls are then run again one by one. Otherwise — the connection broke,
   * or the answer made no sense — whether it committed is unknown, and every call of the batch fails
   * with the error, as a single call lost the same way does (a settle retried after a commit nobody saw
   * would answer "already settled", and the request's log would show no charge).
   */
  rolledBack(error: unknown): boolean;
  /** Hears why a batch failed (a deadlock would show here). */
  onBatchFailed?(error: unknown): void;
}

interface Waiting<Call, Outcome> {
  call: Call;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

/**
 * Group commit for a ledger on a database server: the reserves and settles asked for during one
 * event-loop turn (and while the batches before them are still out) go to the server as one batch, one
 * transaction, so concurrent requests share a round trip and a commit instead of queueing on the
 * token's and user's row locks one commit at a time.
 *
 * - A call alone (one request in flight) goes through the single routine: no batch overhead where there
 *   is nothing to share.
 * - A batch is one transaction. If the server refuses it, none of it was committed, and each of its calls
 *   is run again on its own, one after the other, so an error reaches only the call that causes it. If
 *   its outcome is unknown (the connection broke), every call of it fails, as a single call would.
 * - A promise settles only once its call's transaction has committed (or failed).
 */
export class LedgerCallBatcher {
  private reserves: Waiting<ReserveCall, ReserveOutcome>[] = [];
  private settles: Waiting<SettleCall, SettleOutcome>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly calls: LedgerCalls,
    private readonly options: LedgerCallBatcherOptions,
  ) {}

  reserve(call: ReserveCall): Promise<ReserveOutcome> {
    return new Promise((resolve, reject) => {
      this.reserves.push({ call, resolve, reject });
      this.schedule();
    });
  }

  settle(call: SettleCall): Promise<SettleOutcome> {
    return new Promise((resolve, reject) => {
      this.settles.push({ call, resolve, reject });
      this.schedule();
    });
  }

  /** At the end of this turn, so that the turn's other calls join. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    while (this.inFlight < this.options.maxInFlight && this.settles.length + this.reserves.length > 0) {
      // Settles first: quota they hand back is then there for the reserves.
      const settles = this.settles.splice(0, this.options.maxCalls);
      const reserves = this.reserves.splice(0, this.options.maxCalls - settles.length);
      this.inFlight += 1;
      void this.run(reserves, settles).finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
    }
  }

  private async run(reserves: Waiting<ReserveCall, ReserveOutcome>[], settles: Waiting<SettleCall, SettleOutcome>[]): Promise<void> {
    if (reserves.length + settles.length === 1) return this.runEachAlone(reserves, settles);
    let answer: LedgerBatchAnswer;
    try {
      answer = await this.calls.batch({ reserves: reserves.map((waiting) => waiting.call), settles: settles.map((waiting) => waiting.call) });
    } catch (error) {
      this.options.onBatchFailed?.(error);
      if (this.options.rolledBack(error)) return this.runEachAlone(reserves, settles);
      for (const waiting of [...settles, ...reserves]) waiting.reject(error);
      return;
    }
    reserves.forEach((waiting, index) => waiting.resolve(answer.reserves[index] as ReserveOutcome));
    settles.forEach((waiting, index) => waiting.resolve(answer.settles[index] as SettleOutcome));
  }

  /**
   * One after the other, settles first, so that two calls of the same batch never wait on each other's
   * locks: on MySQL a reserve whose id is taken checks the duplicate under a shared lock on that
   * reservation's row, which a settle of it holds while it waits for the token row the reserve holds, and
   * one of the two would fail as a deadlock victim. Only a lone call or a failed batch comes here.
   */
  private async runEachAlone(reserves: Waiting<ReserveCall, ReserveOutcome>[], settles: Waiting<SettleCall, SettleOutcome>[]): Promise<void> {
    for (const waiting of settles) await this.calls.settle(waiting.call).then(waiting.resolve, waiting.reject);
    for (const waiting of reserves) await this.calls.reserve(waiting.call).then(waiting.resolve, waiting.reject);
  }
}
