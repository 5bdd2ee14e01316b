import { sql, type Transaction } from 'kysely';
import type { Database, DatabaseSchema, DialectName } from '../storage/database-schema.js';
import type { QuotaLedger, RecoveredReservation, RecoveryScope, Reservation, ReserveOutcome, SettleInput, SettleOutcome } from './quota-ledger.js';

/** A reservation still open after this long is settled by whichever instance recovers next. */
export const staleReservationMs = 24 * 60 * 60 * 1000;

type Executor = Transaction<DatabaseSchema>;

/** The two balances a request draws on. Both tables share `unlimited_quota`, `used_quota` and `request_count`. */
const wallets = {
  token: { table: 'tokens', balance: 'remain_quota' },
  user: { table: 'users', balance: 'quota' },
} as const;
type Wallet = keyof typeof wallets;

/**
 * The portable quota ledger: Kysely statements in a transaction, on SQLite, PostgreSQL or MySQL. No
 * longer what createQuotaLedger wires (SQLite gets SqliteQuotaLedger; PostgreSQL and MySQL get
 * StoredRoutineQuotaLedger, which runs these same statements server-side in one round trip); kept as the
 * readable reference of the rules and as the baseline of bench/micro/ledger.mjs.
 *
 * Every balance change is a delta applied by one conditional UPDATE (`balance = balance - ?` guarded by
 * `balance >= ?`), so concurrent requests from any number of processes can neither overdraw a balance
 * nor lose each other's updates. Token and user rows are always touched in that order, so two
 * transactions never wait on each other in a cycle.
 *
 * Unlimited tokens and users (`unlimited_quota = 1`) are never short and their balance never moves;
 * their `used_quota` and `request_count` still grow.
 */
export class SqlQuotaLedger implements QuotaLedger {
  constructor(
    private readonly db: Database,
    private readonly dialect: DialectName,
    /** Stable across restarts of the same instance, so it can recover what its crashed self left open. */
    private readonly owner: string,
  ) {}

  async reserve(reservation: Reservation, now: number): Promise<ReserveOutcome> {
    const amount = quotaAmount(reservation.amount, 'reservation amount');
    return this.inTransaction<ReserveOutcome>(async (trx) => {
      await trx
        .insertInto('quota_reservations')
        .values({
          id: reservation.id,
          token_id: reservation.tokenId,
          user_id: reservation.userId,
          amount,
          owner: this.owner,
          state: 'reserved',
          settled_amount: null,
          created_at: now,
          settled_at: null,
          model: reservation.model ?? null,
        })
        .execute();
      // A free request always passes; the row still exists so that settle has something to settle.
      if (amount === 0) return { commit: true, result: { ok: true } };
      if (!(await debit(trx, 'token', reservation.tokenId, amount))) return { commit: false, result: { ok: false, short: 'token' } };
      if (!(await debit(trx, 'user', reservation.userId, amount))) return { commit: false, result: { ok: false, short: 'user' } };
      return { commit: true, result: { ok: true } };
    });
  }

  /**
   * Charges the actual amount and releases the rest of the reservation. Over-reservation rule: when the
   * actual exceeds the reservation, the extra is taken only as far as BOTH the token and the user can
   * cover it, and the same amount from each — `charged = reserved + min(extra, token balance, user
   * balance)` (an unlimited side covers anything). So no balance goes below zero, and for the token and
   * the user alike `balance + used_quota` is unchanged by a reserve/settle cycle; the log, the token and
   * the user all agree on what the request cost.
   */
  async settle(reservationId: string, input: SettleInput, now: number): Promise<SettleOutcome> {
    const actual = quotaAmount(input.actualAmount, 'actual amount');
    return this.inTransaction<SettleOutcome>(async (trx) => {
      // Claiming the row first makes settle idempotent: a second call (or a racing recovery) claims nothing.
      const claimed = await trx
        .updateTable('quota_reservations')
        .set({ state: 'settled', settled_at: now })
        .where('id', '=', reservationId)
        .where('state', '=', 'reserved')
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) return { commit: false, result: { applied: false, charged: 0 } };

      const row = await trx.selectFrom('quota_reservations').select(['amount', 'token_id', 'user_id']).where('id', '=', reservationId).executeTakeFirstOrThrow();
      const reserved = Number(row.amount);
      const charged = actual <= reserved ? actual : reserved + (await this.coverableExtra(trx, row.token_id, row.user_id, actual - reserved));

      await settleWallet(trx, 'token', row.token_id, reserved, charged);
      await settleWallet(trx, 'user', row.user_id, reserved, charged);
      if (input.channelId !== undefined) {
        await trx
          .updateTable('channels')
          .set((eb) => ({ used_quota: eb('used_quota', '+', charged), request_count: eb('request_count', '+', 1) }))
          .where('id', '=', input.channelId)
          .execute();
      }
      // Which wallets the charge left (migration 017): the flags settleWallet just went by, under its row locks.
      const limited = (table: 'tokens' | 'users', id: number) =>
        sql<number>`coalesce((select case when unlimited_quota = 1 then 0 else 1 end from ${sql.table(table)} where id = ${id}), 0)`;
      await trx
        .updateTable('quota_reservations')
        .set({ settled_amount: charged, token_debited: limited('tokens', row.token_id), user_debited: limited('users', row.user_id), channel_id: input.channelId ?? null })
        .where('id', '=', reservationId)
        .execute();
      return { commit: true, result: { applied: true, charged } };
    });
  }

  async recoverOpenReservations(now: number, onSettled?: (reservation: RecoveredReservation) => Promise<void>, scope: RecoveryScope = 'start'): Promise<{ settled: number; quota: number }> {
    return recoverOpenReservations(this.db, scope === 'start' ? this.owner : undefined, now, (id, input, at) => this.settle(id, input, at), onSettled);
  }

  /**
   * How much of `extra` both balances can cover. The rows are locked first (SQLite: this transaction
   * already holds the database's write lock), so what is read here cannot change before the guarded
   * UPDATEs in {@link settleWallet} run; those guards still refuse to overdraw if it somehow did.
   */
  private async coverableExtra(trx: Executor, tokenId: number, userId: number, extra: number): Promise<number> {
    const token = await this.lockWallet(trx, 'token', tokenId);
    const user = await this.lockWallet(trx, 'user', userId);
    return Math.min(extra, token, user);
  }

  /** The balance a wallet can give: Infinity when unlimited, 0 when the row is gone. */
  private async lockWallet(trx: Executor, wallet: Wallet, id: number): Promise<number> {
    const { table, balance } = wallets[wallet];
    const forUpdate = this.dialect === 'sqlite' ? sql`` : sql`for update`;
    const { rows } = await sql<{ balance: number | string; unlimited_quota: number | string }>`
      select ${sql.ref(balance)} as balance, unlimited_quota from ${sql.table(table)} where id = ${id} ${forUpdate}`.execute(trx);
    const row = rows[0];
    if (row === undefined) return 0;
    return Number(row.unlimited_quota) === 1 ? Number.POSITIVE_INFINITY : Math.max(0, Number(row.balance));
  }

  private async inTransaction<T>(work: (trx: Executor) => Promise<{ commit: boolean; result: T }>): Promise<T> {
    const trx = await this.db.startTransaction().execute();
    try {
      const { commit, result } = await work(trx);
      await (commit ? trx.commit() : trx.rollback()).execute();
      return result;
    } catch (error) {
      // The original error is the one worth reporting; a failed rollback usually means the connection died.
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      throw error;
    }
  }
}

/** Takes `amount` from a limited wallet if it has that much; an unlimited wallet passes untouched. */
async function debit(trx: Executor, wallet: Wallet, id: number, amount: number): Promise<boolean> {
  const { table, balance } = wallets[wallet];
  const column = sql.ref(balance);
  const result = await sql`
    update ${sql.table(table)}
    set ${column} = case when unlimited_quota = 1 then ${column} else ${column} - ${amount} end
    where id = ${id} and (unlimited_quota = 1 or ${column} >= ${amount})`.execute(trx);
  return Number(result.numAffectedRows ?? 0n) === 1;
}

/**
 * Moves a wallet from "reserved" to "charged": returns `reserved - charged` to the balance (or takes the
 * difference when charged is larger, guarded so it cannot overdraw) and counts the charge and the request.
 * The SET list never reads a column it has already assigned, so MySQL's left-to-right evaluation of SET
 * gives the same result as SQLite and PostgreSQL.
 */
async function settleWallet(trx: Executor, wallet: Wallet, id: number, reserved: number, charged: number): Promise<void> {
  const { table, balance } = wallets[wallet];
  const column = sql.ref(balance);
  const change = reserved - charged;
  const guard = change < 0 ? sql`and (unlimited_quota = 1 or ${column} >= ${-change})` : sql``;
  const result = await sql`
    update ${sql.table(table)}
    set ${column} = case when unlimited_quota = 1 then ${column} else ${column} + ${change} end,
        used_quota = used_quota + ${charged},
        request_count = request_count + 1
    where id = ${id} ${guard}`.execute(trx);
  if (change < 0 && Number(result.numAffectedRows ?? 0n) !== 1) {
    throw new Error(`the ${wallet} ${id} balance changed while locked for settlement`);
  }
}

/**
 * Recovery of the pooled ledgers: settles at their reserved amount (the upstream may have served them)
 * the reservations `owner` left open when it stopped (undefined: none, the hourly sweep), plus any owner's
 * older than 24 hours. Each goes through the ledger's own idempotent settle, so two instances recovering
 * at once never charge twice.
 */
export async function recoverOpenReservations(
  db: Database,
  owner: string | undefined,
  now: number,
  settle: (reservationId: string, input: SettleInput, now: number) => Promise<SettleOutcome>,
  onSettled?: (reservation: RecoveredReservation) => Promise<void>,
): Promise<{ settled: number; quota: number }> {
  const open = await db
    .selectFrom('quota_reservations')
    .select(['id', 'amount', 'token_id', 'user_id', 'owner', 'created_at', 'model'])
    .select((eb) => eb.selectFrom('tasks').select((inner) => inner.fn.max('tasks.channel_id').as('channel_id')).whereRef('tasks.request_id', '=', 'quota_reservations.id').as('task_channel_id'))
    .where('state', '=', 'reserved')
    .where((eb) => (owner === undefined ? eb('created_at', '<', now - staleReservationMs) : eb.or([eb('owner', '=', owner), eb('created_at', '<', now - staleReservationMs)])))
    .orderBy('created_at')
    .execute();
  let settled = 0;
  let quota = 0;
  for (const reservation of open) {
    const channelId = taskChannelId(reservation.task_channel_id);
    const outcome = await settle(reservation.id, { actualAmount: Number(reservation.amount), channelId }, now);
    if (!outcome.applied) continue;
    settled += 1;
    quota += outcome.charged;
    await onSettled?.({
      id: reservation.id,
      tokenId: Number(reservation.token_id),
      userId: Number(reservation.user_id),
      owner: reservation.owner,
      createdAt: Number(reservation.created_at),
      charged: outcome.charged,
      model: reservation.model,
      channelId: channelId ?? null,
    });
  }
  return { settled, quota };
}

/**
 * The channel a recovered reservation's charge counts on: none for a request (which channel served it
 * died with the process), the accepting channel for a task the upstream accepted (`tasks.channel_id`,
 * written before the submit's settle). So every settle of a task's reservation — the submit's own, late or
 * not, or recovery's — puts its charge on the task's channel, and the task's refund takes it back from there.
 */
export function taskChannelId(value: number | string | null | undefined): number | undefined {
  return value === null || value === undefined ? undefined : Number(value);
}

export function quotaAmount(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer quota (got ${value})`);
  return value;
}
