import { CompiledQuery } from 'kysely';
import type { Database } from '../storage/database-schema.js';
import type { QuotaLedger, RecoveredReservation, Reservation, ReserveOutcome, SettleInput, SettleOutcome } from './quota-ledger.js';
import { quotaAmount, recoverOpenReservations } from './sql-quota-ledger.js';

export type RoutineDialect = 'postgres' | 'mysql';

/** How each server is asked to run the routines of migration 002, and where its answer is. */
const calls: Record<RoutineDialect, { reserve: string; settle: string }> = {
  postgres: { reserve: 'select relay_reserve($1, $2, $3, $4, $5, $6) as outcome', settle: 'select relay_settle($1, $2, $3, $4) as charged' },
  mysql: { reserve: 'call relay_reserve(?, ?, ?, ?, ?, ?)', settle: 'call relay_settle(?, ?, ?, ?)' },
};

/**
 * The quota ledger on PostgreSQL and MySQL: reserve and settle are each one call of a stored routine
 * (src/storage/migrations/002-ledger-routines.ts), so one round trip and one transaction on the server
 * instead of BEGIN, five to seven statements and COMMIT each awaited from here. The routines keep every
 * rule: guarded delta UPDATEs (no balance below zero, whatever number of processes), token before user,
 * over-reservation capped by both balances, idempotent settle. The query is compiled once; Kysely only
 * lends the pooled connection.
 *
 * Unlimited tokens and users (`unlimited_quota = 1`) are never short and their balance never moves;
 * their `used_quota` and `request_count` still grow.
 */
export class StoredRoutineQuotaLedger implements QuotaLedger {
  constructor(
    private readonly db: Database,
    private readonly dialect: RoutineDialect,
    /** Stable across restarts of the same instance, so it can recover what its crashed self left open. */
    private readonly owner: string,
  ) {}

  async reserve(reservation: Reservation, now: number): Promise<ReserveOutcome> {
    const amount = quotaAmount(reservation.amount, 'reservation amount');
    const row = await this.call(calls[this.dialect].reserve, [reservation.id, reservation.tokenId, reservation.userId, amount, this.owner, now]);
    const outcome = row?.['outcome'];
    if (outcome === 'ok') return { ok: true };
    if (outcome === 'token' || outcome === 'user') return { ok: false, short: outcome };
    throw new Error(`relay_reserve answered ${JSON.stringify(outcome)}`);
  }

  /**
   * Over-reservation rule: `charged = reserved + min(extra, token balance, user balance)` (an unlimited
   * side covers anything), taken from both, so `balance + used_quota` is unchanged for each by a
   * reserve/settle cycle and the log, the token and the user agree on what the request cost.
   */
  async settle(reservationId: string, input: SettleInput, now: number): Promise<SettleOutcome> {
    const actual = quotaAmount(input.actualAmount, 'actual amount');
    const row = await this.call(calls[this.dialect].settle, [reservationId, actual, input.channelId ?? null, now]);
    const charged = row?.['charged'];
    if (charged === null || charged === undefined) return { applied: false, charged: 0 };
    return { applied: true, charged: Number(charged) };
  }

  async recoverOpenReservations(now: number, onSettled?: (reservation: RecoveredReservation) => Promise<void>): Promise<{ settled: number; quota: number }> {
    return recoverOpenReservations(this.db, this.owner, now, (id, input, at) => this.settle(id, input, at), onSettled);
  }

  /** The routine's one-row answer. MySQL's CALL answers with its result sets, then a status packet. */
  private async call(text: string, parameters: unknown[]): Promise<Record<string, unknown> | undefined> {
    const { rows } = await this.db.executeQuery<unknown>(CompiledQuery.raw(text, parameters));
    const first = rows[0];
    return (Array.isArray(first) ? first[0] : first) as Record<string, unknown> | undefined;
  }
}
