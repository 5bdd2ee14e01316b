import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import { ExpectedFailure, SqliteGroupCommit } from '../storage/sqlite-group-commit.js';
import type { QuotaLedger, RecoveredReservation, RecoveryScope, Reservation, ReserveOutcome, SettleInput, SettleOutcome } from './quota-ledger.js';
import { SettledIncrements, type WalletIncrement } from './settled-increments.js';
import { quotaAmount, staleReservationMs, taskChannelId } from './sql-quota-ledger.js';

/** Thrown only once the step has undone its own writes: the group commit rejects this request alone. */
class Short extends ExpectedFailure {
  constructor(readonly wallet: 'token' | 'user') {
    super(`${wallet} cannot cover the reservation`);
  }
}

const wallets = { token: { table: 'tokens', balance: 'remain_quota' }, user: { table: 'users', balance: 'quota' } } as const;

/** What a settle needs of an open reservation: the row's amount and wallets. */
interface OpenReservation {
  amount: number;
  token_id: number;
  user_id: number;
}

const taskChannel = `(select max(channel_id) from tasks where tasks.request_id = quota_reservations.id) as task_channel_id`;

/** Reservations remembered at most; past it the memory is dropped and settles read their rows back. */
const maxRemembered = 65_536;

/**
 * The quota ledger on the embedded SQLite database: the same rules and statements as SqlQuotaLedger, each
 * reserve or settle one synchronous step (microseconds, no await inside) instead of a dozen awaited round
 * trips through the query builder. SQLite has one writer anyway, and a commit costs more than the
 * statements: the steps queued during one event-loop turn share one transaction (SqliteGroupCommit). A step
 * that finds a balance short undoes its own writes before saying so; any other fault makes the group
 * commit roll back and replay the batch, so either way that request's step alone fails. Each balance
 * change is still one guarded UPDATE, so several processes on one database file cannot overdraw either.
 *
 * A settle within its reservation only adds to counters (balance back, used quota, request count), so it
 * writes its claim and leaves those additions to the end of the transaction (SettledIncrements): a
 * reserve's guarded debit of the same wallet takes the wallet's sum with it in the same UPDATE, and what
 * is left is written once per wallet and channel just before COMMIT. Three statements fewer per request
 * (BENCHMARKS.md, session 11); the rows end exactly as with one UPDATE per settle, within the same
 * transaction, so nothing else ever sees the difference.
 */
export class SqliteQuotaLedger implements QuotaLedger {
  private readonly statements;
  private readonly groupCommit: SqliteGroupCommit;
  /**
   * The reservations this instance committed and has not settled yet, as it inserted them. A row changes
   * only when it is claimed, so a settle takes its amount and wallets from here instead of reading the row
   * back (one statement less per request); the claim still finds out whether it is open. Settles of
   * anything else — recovery after a restart, another instance's reservations — read the row.
   */
  private readonly remembered = new Map<string, OpenReservation>();
  /** Settled counters of the transaction under way, not written yet. */
  private readonly increments = new SettledIncrements();

  /** `groupCommit`: the connection's shared one (the log rows ride it too), or a batch cap for a private one. */
  constructor(private readonly connection: SqliteConnection, private readonly owner: string, groupCommit?: SqliteGroupCommit | number) {
    this.groupCommit = groupCommit instanceof SqliteGroupCommit ? groupCommit : new SqliteGroupCommit(connection, groupCommit);
    this.groupCommit.addDeferredWrites({ write: () => this.writeIncrements(), discard: () => this.increments.clear() });
    const prepare = (text: string): Statement => connection.prepare(text);
    // The wallet's settled increments so far (credit, used, requests) go in with the debit, under its guard.
    const debit = (wallet: 'token' | 'user') => {
      const { table, balance } = wallets[wallet];
      return prepare(
        `update ${table} set ${balance} = case when unlimited_quota = 1 then ${balance} else ${balance} + ? - ? end, used_quota = used_quota + ?, request_count = request_count + ? where id = ? and (unlimited_quota = 1 or ${balance} + ? >= ?)`,
      );
    };
    const addToWallet = (wallet: 'token' | 'user') => {
      const { table, balance } = wallets[wallet];
      return prepare(
        `update ${table} set ${balance} = case when unlimited_quota = 1 then ${balance} else ${balance} + ? end, used_quota = used_quota + ?, request_count = request_count + ? where id = ?`,
      );
    };
    const settleWalletGuarded = (wallet: 'token' | 'user') => {
      const { table, balance } = wallets[wallet];
      return prepare(
        `update ${table} set ${balance} = case when unlimited_quota = 1 then ${balance} else ${balance} + ? end, used_quota = used_quota + ?, request_count = request_count + 1 where id = ? and (unlimited_quota = 1 or ${balance} >= ?)`,
      );
    };
    const balanceOf = (wallet: 'token' | 'user') => prepare(`select ${wallets[wallet].balance} as balance, unlimited_quota from ${wallets[wallet].table} where id = ?`);
    this.statements = {
      insert: prepare(`insert into quota_reservations (id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at, model) values (?, ?, ?, ?, ?, 'reserved', null, ?, null, ?)`),
      debitToken: debit('token'),
      debitUser: debit('user'),
      creditToken: prepare(`update tokens set remain_quota = case when unlimited_quota = 1 then remain_quota else remain_quota + ? end where id = ?`),
      // The open reservation, then its claim, which records the charge when it is within the reservation (the
      // usual case). Not one UPDATE … RETURNING: SQLite gathers returned rows in a temporary table on every
      // execution, and the read plus the write cost less (~4 µs per request through the gateway).
      openReservation: prepare(`select amount, token_id, user_id from quota_reservations where id = ? and state = 'reserved'`),
      // Which wallets the charge leaves (migration 017), by the flags the settled increments will be written
      // by: read in this transaction, which nothing else writes before it commits.
      claim: prepare(
        `update quota_reservations set state = 'settled', settled_at = ?, settled_amount = min(amount, ?), channel_id = ?,
          token_debited = coalesce((select unlimited_quota <> 1 from tokens where id = quota_reservations.token_id), 0),
          user_debited = coalesce((select unlimited_quota <> 1 from users where id = quota_reservations.user_id), 0)
          where id = ? and state = 'reserved'`,
      ),
      tokenBalance: balanceOf('token'),
      userBalance: balanceOf('user'),
      addToToken: addToWallet('token'),
      settleTokenGuarded: settleWalletGuarded('token'),
      addToUser: addToWallet('user'),
      settleUserGuarded: settleWalletGuarded('user'),
      addToChannel: prepare(`update channels set used_quota = used_quota + ?, request_count = request_count + ? where id = ?`),
      recordCharge: prepare(`update quota_reservations set settled_amount = ? where id = ?`),
      // With the channel of the task the reservation is for, if an upstream accepted one (taskChannelId).
      open: prepare(`select id, amount, token_id, user_id, owner, created_at, model, ${taskChannel} from quota_reservations where state = 'reserved' and (owner = ? or created_at < ?) order by created_at`),
      stale: prepare(`select id, amount, token_id, user_id, owner, created_at, model, ${taskChannel} from quota_reservations where state = 'reserved' and created_at < ? order by created_at`),
    };
  }

  async reserve(reservation: Reservation, now: number): Promise<ReserveOutcome> {
    const amount = quotaAmount(reservation.amount, 'reservation amount');
    try {
      await this.groupCommit.run(() => this.reserveStep(reservation, amount, now));
    } catch (error) {
      if (error instanceof Short) return { ok: false, short: error.wallet };
      throw error;
    }
    // Only once committed: a step may run more than once, and a lost transaction reserved nothing.
    if (this.remembered.size >= maxRemembered) this.remembered.clear();
    this.remembered.set(reservation.id, { amount, token_id: reservation.tokenId, user_id: reservation.userId });
    return { ok: true };
  }

  async settle(reservationId: string, input: SettleInput, now: number): Promise<SettleOutcome> {
    const actual = quotaAmount(input.actualAmount, 'actual amount');
    const known = this.remembered.get(reservationId);
    try {
      return await this.groupCommit.runWithNext(() => this.settleStep(reservationId, actual, input.channelId, now, known));
    } finally {
      // Settled, or found settled, or failed (then a later settle reads the row): either way no longer needed.
      this.remembered.delete(reservationId);
    }
  }

  async recoverOpenReservations(now: number, onSettled?: (reservation: RecoveredReservation) => Promise<void>, scope: RecoveryScope = 'start'): Promise<{ settled: number; quota: number }> {
    await this.outsideOtherTransactions();
    const cutoff = now - staleReservationMs;
    const open = (scope === 'start' ? this.statements.open.all(this.owner, cutoff) : this.statements.stale.all(cutoff)) as { id: string; amount: number; token_id: number; user_id: number; owner: string; created_at: number; model: string | null; task_channel_id: number | null }[];
    let settled = 0;
    let quota = 0;
    for (const reservation of open) {
      const channelId = taskChannelId(reservation.task_channel_id);
      const outcome = await this.settle(reservation.id, { actualAmount: Number(reservation.amount), channelId }, now);
      if (!outcome.applied) continue;
      settled += 1;
      quota += outcome.charged;
      await onSettled?.({ id: reservation.id, tokenId: reservation.token_id, userId: reservation.user_id, owner: reservation.owner, createdAt: Number(reservation.created_at), charged: outcome.charged, model: reservation.model, channelId: channelId ?? null });
    }
    return { settled, quota };
  }

  /**
   * Runs directly in the group commit's transaction, so a Short must leave no trace: the row is inserted
   * last, a short token has written nothing yet, a short user has its token debit credited back.
   */
  private reserveStep(reservation: Reservation, amount: number, now: number): void {
    const s = this.statements;
    if (amount > 0) {
      if (!this.debit('token', s.debitToken, reservation.tokenId, amount)) throw new Short('token');
      if (!this.debit('user', s.debitUser, reservation.userId, amount)) {
        // The token's settled increments went in with its debit and stay written: only the debit is undone.
        s.creditToken.run(amount, reservation.tokenId);
        throw new Short('user');
      }
    }
    s.insert.run(reservation.id, reservation.tokenId, reservation.userId, amount, this.owner, now, reservation.model ?? null);
  }

  /**
   * The guarded debit, with the wallet's settled increments written in the same UPDATE (the guard counts
   * the credit they hand back). Short: nothing written, and the increments wait for a later write.
   */
  private debit(wallet: 'token' | 'user', statement: Statement, id: number, amount: number): boolean {
    const pending = this.increments.of(wallet, id);
    if (statement.run(pending.credit, amount, pending.used, pending.requests, id, pending.credit, amount).changes !== 1) return false;
    this.increments.written(wallet, id);
    return true;
  }

  /**
   * Writes nothing unless the reservation is open; a failure after the claim is a fault (the group commit
   * replays). `known`: the reservation as this instance committed it, so its row need not be read.
   */
  private settleStep(id: string, actual: number, channelId: number | undefined, now: number, known: OpenReservation | undefined): SettleOutcome {
    const s = this.statements;
    const row = known ?? (s.openReservation.get(id) as OpenReservation | undefined);
    if (row === undefined) return { applied: false, charged: 0 };
    if (s.claim.run(now, actual, channelId ?? null, id).changes !== 1) {
      // Remembered but no longer open: settled already (a second settle, or recovery elsewhere).
      if (known !== undefined) return { applied: false, charged: 0 };
      // Read in this same transaction, so the claim finds it open; otherwise it is a fault (the group commit replays).
      throw new Error(`reservation ${id} changed during settlement`);
    }
    const reserved = Number(row.amount);
    if (actual <= reserved) {
      this.increments.add(row.token_id, row.user_id, channelId, reserved - actual, actual);
      return { applied: true, charged: actual };
    }
    // An overage is taken only as far as the balances cover it: written now, with the wallets' settled
    // increments first, so that the balances read here count what earlier settles handed back.
    this.writeIncrement(s.addToToken, row.token_id, this.increments.of('token', row.token_id));
    this.increments.written('token', row.token_id);
    this.writeIncrement(s.addToUser, row.user_id, this.increments.of('user', row.user_id));
    this.increments.written('user', row.user_id);
    const charged = reserved + Math.min(actual - reserved, this.balance(s.tokenBalance, row.token_id), this.balance(s.userBalance, row.user_id));
    const change = reserved - charged;
    if (change < 0) {
      // Guarded: the balance was read in this same transaction, so the guard only confirms it.
      if (s.settleTokenGuarded.run(change, charged, row.token_id, -change).changes !== 1) throw new Error(`token ${row.token_id} balance changed during settlement`);
      if (s.settleUserGuarded.run(change, charged, row.user_id, -change).changes !== 1) throw new Error(`user ${row.user_id} balance changed during settlement`);
    } else {
      // Nothing above the reservation could be taken (a balance at 0, or a wallet gone): counters only.
      s.addToToken.run(0, charged, 1, row.token_id);
      s.addToUser.run(0, charged, 1, row.user_id);
    }
    if (channelId !== undefined) s.addToChannel.run(charged, 1, channelId);
    // The claim recorded min(reserved, actual); the overage covered by the balances is more than that.
    if (charged > reserved) s.recordCharge.run(charged, id);
    return { applied: true, charged };
  }

  /** Just before COMMIT: what the transaction's settles left, once per wallet and channel. */
  private writeIncrements(): void {
    const s = this.statements;
    const { tokens, users, channels } = this.increments.drain();
    for (const [id, increment] of tokens) this.writeIncrement(s.addToToken, id, increment);
    for (const [id, increment] of users) this.writeIncrement(s.addToUser, id, increment);
    for (const [id, increment] of channels) s.addToChannel.run(increment.used, increment.requests, id);
  }

  private writeIncrement(statement: Statement, id: number, increment: WalletIncrement): void {
    if (increment.requests > 0) statement.run(increment.credit, increment.used, increment.requests, id);
  }

  private balance(statement: Statement, id: number): number {
    const row = statement.get(id) as { balance: number; unlimited_quota: number } | undefined;
    if (row === undefined) return 0;
    return Number(row.unlimited_quota) === 1 ? Number.POSITIVE_INFINITY : Math.max(0, Number(row.balance));
  }

  /** The query builder shares this connection; its (rare, admin) transactions span awaits. Wait them out. */
  private async outsideOtherTransactions(): Promise<void> {
    while (this.connection.inTransaction) await new Promise((resolve) => setImmediate(resolve));
  }
}
