import type { QuotaLedger, SettleInput } from './quota-ledger.js';

/** A settle to make again. */
export interface PendingSettle {
  reservationId: string;
  input: SettleInput;
  /**
   * Told once the settle went through, with what it charged (the request's log row is written then). A
   * try that finds the reservation settled already — by an earlier try whose answer was lost, or by crash
   * recovery (the 24-hour sweep of another instance, or of this one after a long outage) — tells what that
   * settle moved, read back (`settlementOf`), and whether recovery logged it already: the request's row is
   * then not written (one charge, one row; recovery's is at the reserved amount it charged).
   */
  onSettled?: ((charged: number, loggedByRecovery: boolean) => void) | undefined;
  /**
   * How many more times a settle that finds nothing open to settle is made again, on the same schedule:
   * the settle of a reserve whose outcome is unknown, which may still be committing on the server (a
   * statement whose client went away runs on, a lock wait first). 0 unless set.
   */
  recheck?: number | undefined;
}

export interface SettleRetryOptions {
  /** Wait before the first retry; each one after doubles it, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  now(): number;
  /** Hears each failed try (`tries`: 1 for the one that queued it), and an `onSettled` that threw. */
  onFailure?(error: unknown, reservationId: string, tries: number): void;
  /**
   * What a reservation found settled already had moved (read-settlement.ts); a read that fails is a failed
   * try. Without it (or when it finds nothing) `onSettled` is told the actual amount, not logged.
   */
  settlementOf?(reservationId: string): Promise<FoundSettlement | undefined>;
}

/** What the settle of a reservation that a retry found settled already had moved. */
export interface FoundSettlement {
  charged: number;
  /** Crash recovery settled it, and wrote its log row. */
  loggedByRecovery: boolean;
}

interface Entry {
  pending: PendingSettle;
  tries: number;
  rechecks: number;
  delayMs: number;
  timer: NodeJS.Timeout | undefined;
  /** The try under way; it never rejects. */
  running: Promise<void> | undefined;
}

/**
 * Settles that could not be made because the database could not be reached (or its answer was lost),
 * made again in the background until they go through: after `firstDelayMs`, then at doubling intervals up
 * to `maxDelayMs`, for as long as the process lives. Safe because a settle is idempotent: it claims only a
 * reservation still open (state 'reserved'), and one of an id never reserved changes nothing — so a
 * reserve whose outcome is unknown is cleaned up by queueing its settle at nothing.
 *
 * Without it such a reservation stayed open, holding the balances, until start-up recovery or the 24-hour
 * sweep charged it in full. Only failures come here: a settle that goes through at once never touches it.
 */
export class SettleRetryQueue {
  private readonly entries = new Set<Entry>();
  private closing = false;

  constructor(
    private readonly ledger: Pick<QuotaLedger, 'settle'>,
    private readonly options: SettleRetryOptions,
  ) {}

  /** Settles waiting for their next try (after `close`, those left to start-up recovery). */
  get size(): number {
    return this.entries.size;
  }

  /** Queues a settle whose try failed with `error`. After `close`, it gets one try at once and no more. */
  add(pending: PendingSettle, error: unknown): void {
    const entry: Entry = { pending, tries: 1, rechecks: pending.recheck ?? 0, delayMs: this.options.firstDelayMs, timer: undefined, running: undefined };
    this.entries.add(entry);
    this.options.onFailure?.(error, pending.reservationId, 1);
    if (this.closing) this.attempt(entry);
    else this.schedule(entry);
  }

  /**
   * Shutdown: each settle waiting gets one more try at once, and those tries (and any under way) are
   * waited for at most `waitMs`. What still has not gone through is left to start-up recovery, which
   * settles it at its reserved amount. Resolves with how many were left.
   */
  async close(waitMs: number): Promise<number> {
    this.closing = true;
    for (const entry of this.entries) {
      if (entry.timer === undefined) continue;
      clearTimeout(entry.timer);
      entry.timer = undefined;
      this.attempt(entry);
    }
    const running = [...this.entries].flatMap((entry) => (entry.running === undefined ? [] : [entry.running]));
    if (running.length > 0) await within(Promise.all(running), waitMs);
    return this.entries.size;
  }

  private schedule(entry: Entry): void {
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.attempt(entry);
    }, entry.delayMs);
    // A retry alone does not keep the process alive: shutdown tries once more, then recovery takes over.
    entry.timer.unref();
    entry.delayMs = Math.min(entry.delayMs * 2, this.options.maxDelayMs);
  }

  private attempt(entry: Entry): void {
    entry.running = this.tryOnce(entry);
  }

  /** One try; never rejects. */
  private async tryOnce(entry: Entry): Promise<void> {
    const { reservationId, input, onSettled } = entry.pending;
    let charged: number;
    let loggedByRecovery = false;
    try {
      const outcome = await this.ledger.settle(reservationId, input, this.options.now());
      if (!outcome.applied && entry.rechecks > 0 && !this.closing) {
        entry.running = undefined;
        entry.rechecks -= 1;
        return this.schedule(entry);
      }
      charged = outcome.applied ? outcome.charged : input.actualAmount;
      if (!outcome.applied && onSettled !== undefined && this.options.settlementOf !== undefined) {
        const found = await this.options.settlementOf(reservationId);
        if (found !== undefined) ({ charged, loggedByRecovery } = found);
      }
    } catch (error: unknown) {
      entry.running = undefined;
      entry.tries += 1;
      this.options.onFailure?.(error, reservationId, entry.tries);
      if (!this.closing) this.schedule(entry);
      return;
    }
    entry.running = undefined;
    this.entries.delete(entry);
    try {
      onSettled?.(charged, loggedByRecovery);
    } catch (error) {
      // The settle went through; what follows it (a log row) failing must not bring it back.
      this.options.onFailure?.(error, reservationId, entry.tries);
    }
  }
}

/** Resolves when `promise` settles or `ms` milliseconds have passed, whichever is first. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
