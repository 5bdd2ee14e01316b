/**
 * Reserve → settle (issue #4). Every balance change is one atomic conditional SQL statement, so
 * concurrent requests can never take a balance below zero, on any database or number of replicas.
 */
export interface Reservation {
  /** The request id. */
  id: string;
  tokenId: number;
  userId: number;
  /** Upper estimate in quota units. */
  amount: number;
  /** The model asked for, kept on the reservation so that a log row written back from it names it. */
  model?: string;
}

export type ReserveOutcome = { ok: true } | { ok: false; short: 'token' | 'user' };

export interface SettleInput {
  /** What the request actually cost (0 for a failure that produced nothing). */
  actualAmount: number;
  /** The channel that served, for its used-quota counter; undefined when none did. */
  channelId: number | undefined;
}

export interface SettleOutcome {
  /** What was charged: the actual amount, or less when the balances could not cover more than the reservation. */
  charged: number;
  /** False when the reservation was already settled (settle is idempotent). */
  applied: boolean;
}

/** A reservation that start-up recovery settled at its reserved amount. */
export interface RecoveredReservation {
  /** The request id. */
  id: string;
  tokenId: number;
  userId: number;
  /** The instance that held it when it stopped. */
  owner: string;
  createdAt: number;
  charged: number;
  /** The model its reserve recorded (null: made before migration 021, or no model). */
  model: string | null;
  /** The channel its settle counted the charge on (null: none, or settled before migration 021). */
  channelId: number | null;
}

export type RecoveryScope = 'start' | 'stale';

/** `now` is unix milliseconds, like every time in the database. */
export interface QuotaLedger {
  reserve(reservation: Reservation, now: number): Promise<ReserveOutcome>;
  settle(reservationId: string, input: SettleInput, now: number): Promise<SettleOutcome>;
  /**
   * Settles at their reserved amount the reservations left open by a crash. `start` (on start-up): this
   * instance's own, and any instance's still open after 24 hours; `stale` (the hourly sweep, while this
   * instance's own are in flight): only those older than 24 hours, whose owner never came back (a replica
   * removed, a cluster shrunk). `onSettled` hears of each one this call settled, so the charge can be logged.
   */
  recoverOpenReservations(now: number, onSettled?: (reservation: RecoveredReservation) => Promise<void>, scope?: RecoveryScope): Promise<{ settled: number; quota: number }>;
}
