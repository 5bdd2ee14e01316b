import { RetriedWrites } from '../storage/retried-writes.js';
import type { QuotaLedger, SettleInput, SettleOutcome } from './quota-ledger.js';

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

/**
 * Settles that could not be made because the database could not be reached (or its answer was lost),
 * made again in the background until they go through: after `firstDelayMs`, then at doubling intervals up
 * to `maxDelayMs`, for as long as the process lives (RetriedWrites with no last try). Safe because a settle
 * is idempotent: it claims only a reservation still open (state 'reserved'), and one of an id never
 * reserved changes nothing — so a reserve whose outcome is unknown is cleaned up by queueing its settle at
 * nothing.
 *
 * Without it such a reservation stayed open, holding the balances, until start-up recovery or the 24-hour
 * sweep charged it in full. Only failures come here: a settle that goes through at once never touches it.
 */
export class SettleRetryQueue {
  private readonly writes: RetriedWrites;
  /** Settles queued and not gone through yet. */
  private unsettled = 0;

  constructor(
    private readonly ledger: Pick<QuotaLedger, 'settle'>,
    private readonly options: SettleRetryOptions,
  ) {
    this.writes = new RetriedWrites({ firstDelayMs: options.firstDelayMs, maxDelayMs: options.maxDelayMs, tries: Infinity });
  }

  /** Settles waiting for their next try (after `close`, those left to start-up recovery). */
  get size(): number {
    return this.unsettled;
  }

  /** Queues a settle whose try failed with `error`. After `close`, it gets one try at once and no more. */
  add(pending: PendingSettle, error: unknown): void {
    const { reservationId } = pending;
    let tries = 1;
    let rechecks = pending.recheck ?? 0;
    this.unsettled += 1;
    this.options.onFailure?.(error, reservationId, tries);
    this.writes.start(
      {
        write: async () => {
          const outcome = await this.ledger.settle(reservationId, pending.input, this.options.now());
          // Not at shutdown (also for a try that was under way when it began): recovery takes over then.
          if (!outcome.applied && rechecks > 0 && !this.writes.closed) {
            rechecks -= 1;
            return 'again';
          }
          const found = await this.settled(pending, outcome);
          this.unsettled -= 1;
          try {
            pending.onSettled?.(found.charged, found.loggedByRecovery);
          } catch (thrown) {
            // The settle went through; what follows it (a log row) failing must not bring it back.
            this.options.onFailure?.(thrown, reservationId, tries);
          }
        },
        onError: (failure) => {
          tries += 1;
          this.options.onFailure?.(failure, reservationId, tries);
        },
      },
      true,
    );
  }

  /**
   * Shutdown: each settle waiting gets one more try at once, and those tries (and any under way) are
   * waited for at most `waitMs`. What still has not gone through is left to start-up recovery, which
   * settles it at its reserved amount. Resolves with how many were left.
   */
  async close(waitMs: number): Promise<number> {
    await this.writes.close(waitMs);
    return this.unsettled;
  }

  /**
   * What a settle that went through charged, and whether recovery logged it: read back when it found the
   * reservation settled already (rejects when that read does).
   */
  private async settled({ reservationId, input, onSettled }: PendingSettle, outcome: SettleOutcome): Promise<FoundSettlement> {
    if (outcome.applied) return { charged: outcome.charged, loggedByRecovery: false };
    const found = onSettled === undefined ? undefined : await this.options.settlementOf?.(reservationId);
    return found ?? { charged: input.actualAmount, loggedByRecovery: false };
  }
}
