import { CompiledQuery } from 'kysely';
import type { Database } from '../storage/database-schema.js';
import { LedgerCallBatcher, type LedgerBatch, type LedgerBatchAnswer, type ReserveCall, type SettleCall } from './ledger-call-batcher.js';
import type { QuotaLedger, RecoveredReservation, RecoveryScope, Reservation, ReserveOutcome, SettleInput, SettleOutcome } from './quota-ledger.js';
import { quotaAmount, recoverOpenReservations } from './sql-quota-ledger.js';

export type RoutineDialect = 'postgres' | 'mysql';

/**
 * How each server is asked to run the routines, and how it answers: the single calls (migration 002);
 * the batch, which on PostgreSQL takes one array per column (migration 004) and on MySQL one JSON array
 * of rows per kind of call (migration 005); and which of its errors prove that a batch rolled back.
 */
interface DialectRoutines {
  reserve: string;
  settle: string;
  batch: string;
  batchArguments(batch: LedgerBatch, owner: string, now: number): unknown[];
  rolledBack(error: unknown): boolean;
}

const routines: Record<RoutineDialect, DialectRoutines> = {
  postgres: {
    reserve: 'select relay_reserve($1, $2, $3, $4, $5, $6, $7) as outcome',
    settle: 'select relay_settle($1, $2, $3, $4) as charged',
    batch: 'select reserve_outcomes, settle_charges from relay_ledger_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
    batchArguments: postgresBatchArguments,
    rolledBack: (error) => isSqlstate((error as { code?: unknown } | null)?.code),
  },
  mysql: {
    // relay_reserve keeps the six arguments of the version before migration 021 (MySQL has no optional ones).
    reserve: 'call relay_reserve_model(?, ?, ?, ?, ?, ?, ?)',
    settle: 'call relay_settle(?, ?, ?, ?)',
    batch: 'call relay_ledger_batch(?, ?, ?, ?)',
    batchArguments: mysqlBatchArguments,
    rolledBack: mysqlAnsweredWithError,
  },
};

/** ER_SP_DOES_NOT_EXIST: a MySQL server older than JSON_TABLE has no batch routine (migration 005). */
const mysqlNoSuchRoutine = 1305;

/**
 * One batch out at a time: the calls that arrive while it commits make the next. With 50 connections on
 * one token, 1 batch in flight did 3,373 requests/s, 2 did 2,696–2,870, 4 did 2,460 (bench, PostgreSQL +
 * Redis, 3 s each): a second batch on the same rows only waits for the first one's locks, and is
 * smaller. At most 200 calls per batch, so that one transaction holds its locks briefly.
 */
const batchOptions = { maxInFlight: 1, maxCalls: 200 };

/**
 * The quota ledger on PostgreSQL and MySQL: reserve and settle are each one call of a stored routine
 * (src/storage/migrations/002-ledger-routines.ts), so one round trip and one transaction on the server
 * instead of BEGIN, five to seven statements and COMMIT each awaited from here. The calls of a turn go
 * together, as one call of the batch routine (migrations 004 and 005): one round trip and one commit for
 * all of them; a MySQL server without the batch routine (older than JSON_TABLE) gets them one by one.
 * The routines keep every rule: guarded delta UPDATEs (no balance below zero, whatever number of
 * processes), token before user, over-reservation capped by both balances, idempotent settle.
 * The queries are compiled once; Kysely only lends the pooled connection.
 *
 * Unlimited tokens and users (`unlimited_quota = 1`) are never short and their balance never moves;
 * their `used_quota` and `request_count` still grow.
 */
export class StoredRoutineQuotaLedger implements QuotaLedger {
  /** The calls of a turn go as one batch (src/billing/ledger-call-batcher.ts). */
  private readonly batcher: LedgerCallBatcher;
  /** Set when MySQL answered that it has no batch routine: from then on every call goes alone. */
  private batchRoutineMissing = false;

  constructor(
    private readonly db: Database,
    private readonly dialect: RoutineDialect,
    /** Stable across restarts of the same instance, so it can recover what its crashed self left open. */
    private readonly owner: string,
    /** Hears why a batch failed (its calls are then run one by one). */
    onBatchFailed?: (error: unknown) => void,
  ) {
    this.batcher = new LedgerCallBatcher(
      { batch: (batch) => this.callBatch(batch), reserve: (call) => this.callReserve(call), settle: (call) => this.callSettle(call) },
      { ...batchOptions, rolledBack: routines[dialect].rolledBack, onBatchFailed },
    );
  }

  async reserve(reservation: Reservation, now: number): Promise<ReserveOutcome> {
    const call = { ...reservation, amount: quotaAmount(reservation.amount, 'reservation amount'), now };
    return this.batchRoutineMissing ? this.callReserve(call) : this.batcher.reserve(call);
  }

  /**
   * Over-reservation rule: `charged = reserved + min(extra, token balance, user balance)` (an unlimited
   * side covers anything), taken from both, so `balance + used_quota` is unchanged for each by a
   * reserve/settle cycle and the log, the token and the user agree on what the request cost.
   */
  async settle(reservationId: string, input: SettleInput, now: number): Promise<SettleOutcome> {
    const call = { reservationId, actual: quotaAmount(input.actualAmount, 'actual amount'), channelId: input.channelId ?? null, now };
    return this.batchRoutineMissing ? this.callSettle(call) : this.batcher.settle(call);
  }

  async recoverOpenReservations(now: number, onSettled?: (reservation: RecoveredReservation) => Promise<void>, scope: RecoveryScope = 'start'): Promise<{ settled: number; quota: number }> {
    return recoverOpenReservations(this.db, scope === 'start' ? this.owner : undefined, now, (id, input, at) => this.settle(id, input, at), onSettled);
  }

  private async callReserve(call: ReserveCall): Promise<ReserveOutcome> {
    const row = await this.call(routines[this.dialect].reserve, [call.id, call.tokenId, call.userId, call.amount, this.owner, call.now, call.model ?? null]);
    return reserveOutcome(row?.['outcome']);
  }

  private async callSettle(call: SettleCall): Promise<SettleOutcome> {
    const row = await this.call(routines[this.dialect].settle, [call.reservationId, call.actual, call.channelId, call.now]);
    return settleOutcome(row?.['charged']);
  }

  /** One transaction, stamped with the latest time any of its calls was asked at. */
  private async callBatch(batch: LedgerBatch): Promise<LedgerBatchAnswer> {
    const { reserves, settles } = batch;
    const now = Math.max(...reserves.map((call) => call.now), ...settles.map((call) => call.now));
    let row: Record<string, unknown> | undefined;
    try {
      const { batch: text, batchArguments } = routines[this.dialect];
      row = await this.call(text, batchArguments(batch, this.owner, now));
    } catch (error) {
      if (this.dialect === 'mysql' && (error as { errno?: unknown }).errno === mysqlNoSuchRoutine) this.batchRoutineMissing = true;
      throw error;
    }
    const outcomes = jsonArray(row?.['reserve_outcomes']);
    const charges = jsonArray(row?.['settle_charges']);
    if (!Array.isArray(outcomes) || outcomes.length !== reserves.length || !Array.isArray(charges) || charges.length !== settles.length) {
      throw new Error(`relay_ledger_batch answered ${JSON.stringify(row)} for ${reserves.length} reserves and ${settles.length} settles`);
    }
    return { reserves: outcomes.map(reserveOutcome), settles: charges.map(settleOutcome) };
  }

  /** The routine's one-row answer. MySQL's CALL answers with its result sets, then a status packet. */
  private async call(text: string, parameters: unknown[]): Promise<Record<string, unknown> | undefined> {
    const { rows } = await this.db.executeQuery<unknown>(CompiledQuery.raw(text, parameters));
    const first = rows[0];
    return (Array.isArray(first) ? first[0] : first) as Record<string, unknown> | undefined;
  }
}

/** PostgreSQL's batch takes one array per column (the reserves' models last, migration 021). */
function postgresBatchArguments({ reserves, settles }: LedgerBatch, owner: string, now: number): unknown[] {
  return [
    reserves.map((reservation) => reservation.id),
    reserves.map((reservation) => reservation.tokenId),
    reserves.map((reservation) => reservation.userId),
    reserves.map((reservation) => reservation.amount),
    settles.map((call) => call.reservationId),
    settles.map((call) => call.actual),
    settles.map((call) => call.channelId),
    owner,
    now,
    reserves.map((reservation) => reservation.model ?? null),
  ];
}

/** MySQL's batch takes each kind of call as a JSON array of rows (amounts are safe integers, so exact in JSON; a reserve's model fifth, migration 021). */
function mysqlBatchArguments({ reserves, settles }: LedgerBatch, owner: string, now: number): unknown[] {
  return [
    JSON.stringify(reserves.map((call) => [call.id, call.tokenId, call.userId, call.amount, call.model ?? null])),
    JSON.stringify(settles.map((call) => [call.reservationId, call.actual, call.channelId])),
    owner,
    now,
  ];
}

/** PostgreSQL answers arrays; MySQL the JSON text of the routine's longtext variables. */
function jsonArray(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

function reserveOutcome(outcome: unknown): ReserveOutcome {
  if (outcome === 'ok') return { ok: true };
  if (outcome === 'token' || outcome === 'user') return { ok: false, short: outcome };
  throw new Error(`relay_reserve answered ${JSON.stringify(outcome)}`);
}

/** What relay_settle answered: the charge (a string inside an int8 array), or null when nothing was open. */
function settleOutcome(charged: unknown): SettleOutcome {
  if (charged === null || charged === undefined) return { applied: false, charged: 0 };
  return { applied: true, charged: Number(charged) };
}

/**
 * MySQL: an error packet the server sent (mysql2 gives it a `sqlState`) on a connection that lives on.
 * The batch routine's handler rolls its transaction back before it passes any error on; a deadlock or a
 * lock wait timeout that the server raises inside it goes through the same handler.
 */
function mysqlAnsweredWithError(error: unknown): boolean {
  const { sqlState, fatal } = (error ?? {}) as { sqlState?: unknown; fatal?: unknown };
  return isSqlstate(sqlState) && fatal !== true;
}

/**
 * A five-character SQLSTATE: the error came from the server, and the statement's transaction rolled back.
 * A broken connection (no code, or a system code such as ECONNRESET) leaves the outcome unknown.
 */
function isSqlstate(code: unknown): boolean {
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}
