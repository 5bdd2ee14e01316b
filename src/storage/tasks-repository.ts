import { sql, type ExpressionBuilder, type RawBuilder, type Selectable } from 'kysely';
import { boundTaskAnswer } from '../tasks/bound-task-answer.js';
import { unfinishedStatuses, type TaskStatus } from '../tasks/task-status.js';
import type { Database, DatabaseSchema, DialectName, TasksTable } from './database-schema.js';
import type { LogRow } from './logs-repository.js';
import { pageOfQuery } from './page-of-query.js';
import type { Page, PageRequest } from './paging.js';

export type TaskRow = Selectable<TasksTable>;

/**
 * A failure reason as stored: at most 2000 characters, without NUL (PostgreSQL's text refuses it, and an
 * upstream may quote the client's prompt in its message).
 */
function storableReason(reason: string): string {
  return reason.replaceAll('\u0000', '').slice(0, 2000);
}

export interface NewTask {
  publicId: string;
  kind: string;
  requestId: string;
  userId: number;
  tokenId: number;
  model: string;
  properties: Record<string, unknown>;
}

export interface SubmittedTask {
  channelId: number;
  keyFingerprint: string;
  upstreamModel: string;
  upstreamId: string;
  status: TaskStatus;
  progress: number;
  result: string;
  nextPollAt: number;
  /** The upstream failed it at once: recorded failed, with nothing charged and so nothing to refund. */
  failReason?: string;
  nothingCharged?: boolean;
}

/** A change to a task seen by the poll loop; applied only if the task is still in the state it was read in. */
export interface TaskChange {
  status: TaskStatus;
  progress: number;
  result?: string;
  failReason?: string;
  completedAt?: number;
  nextPollAt: number;
}

/** What a refund gave back, for its log row. */
export interface TaskRefund {
  quota: number;
  task: TaskRow;
}

/** The filters of a user's own task list (`GET /api/task/self`). */
export interface OwnTaskFilter {
  publicId?: string;
  status?: TaskStatus;
  kind?: string;
  /** created at or after, unix ms */
  from?: number;
  /** created before, unix ms */
  to?: number;
}

/** The columns a user's task list reads: what src/tasks/present-own-task.ts shows, and what it hides ids with. */
const ownTaskColumns = ['public_id', 'kind', 'token_id', 'model', 'status', 'progress', 'properties', 'fail_reason', 'quota', 'refunded', 'upstream_id', 'created_at', 'updated_at', 'completed_at'] as const;
export type OwnTaskRow = Pick<TaskRow, (typeof ownTaskColumns)[number]>;

/** The columns of a task row the Midjourney task object is made from (src/tasks/present-mj-task.ts; a user's MJ list reads only these). */
const mjTaskColumns = ['public_id', 'upstream_id', 'status', 'progress', 'properties', 'result', 'fail_reason', 'created_at', 'completed_at'] as const;
export type MjTaskColumns = Pick<TaskRow, (typeof mjTaskColumns)[number]>;

/** What a user's Midjourney list reads: the task object's columns and the charge (src/tasks/present-own-mj-task.ts). */
const ownMjTaskColumns = [...mjTaskColumns, 'quota'] as const;
export type OwnMjTaskRow = Pick<TaskRow, (typeof ownMjTaskColumns)[number]>;

/** Which tasks a poll pass takes (src/tasks/README.md). */
export interface DueQuery {
  now: number;
  limit: number;
  /** How long a claimed task is this instance's alone. */
  leaseMs: number;
  /** A task still `not_start` this long after it was created lost its submit (a crash): it is failed. */
  orphanAfterMs: number;
}

/**
 * The `tasks` table (migration 010). Every change that decides money is one guarded statement: the submit
 * leaves `not_start` once, a final state is entered once (CAS on the state read), and the refund moves
 * `refunded` 0 → 1 in the same transaction that credits the token, the user and the channel.
 */
export class TasksRepository {
  constructor(
    private readonly db: Database,
    private readonly dialect: DialectName,
  ) {}

  /** A task about to be submitted; it exists before the upstream call, so a crash cannot lose it. */
  async insert(task: NewTask, now: number): Promise<number> {
    const values = {
      public_id: task.publicId,
      kind: task.kind,
      request_id: task.requestId,
      user_id: task.userId,
      token_id: task.tokenId,
      model: task.model,
      status: 'not_start',
      progress: 0,
      properties: JSON.stringify(task.properties),
      refunded: 0,
      lease_until: 0,
      next_poll_at: 0,
      created_at: now,
      updated_at: now,
    };
    if (this.dialect === 'mysql') return Number((await this.db.insertInto('tasks').values(values).executeTakeFirstOrThrow()).insertId);
    return (await this.db.insertInto('tasks').values(values).returning('id').executeTakeFirstOrThrow()).id;
  }

  /** The upstream accepted the task: false when it had already left `not_start` (failed as an orphan). */
  async markSubmitted(id: number, submitted: SubmittedTask, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set({
        channel_id: submitted.channelId,
        key_fingerprint: submitted.keyFingerprint,
        upstream_model: submitted.upstreamModel,
        upstream_id: submitted.upstreamId,
        status: submitted.status,
        progress: submitted.progress,
        result: boundTaskAnswer(submitted.result),
        next_poll_at: submitted.nextPollAt,
        updated_at: now,
        ...(submitted.failReason === undefined ? {} : { fail_reason: storableReason(submitted.failReason), completed_at: now }),
        // Finished in its submit's answer (an image the proxy had already made, an upload).
        ...(submitted.status === 'success' ? { completed_at: now } : {}),
        ...(submitted.nothingCharged === true ? { quota: 0, refunded: 1 } : {}),
      })
      .where('id', '=', id)
      .where('status', '=', 'not_start')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** No upstream accepted the submit, and nothing was charged: the task never existed. */
  async discardUnsubmitted(id: number): Promise<void> {
    await this.db.deleteFrom('tasks').where('id', '=', id).where('status', '=', 'not_start').execute();
  }

  /**
   * The charge the submit settled at, kept with the task (its reservation row is deleted a day later), and
   * which wallets it left, as its settle recorded them on the reservation: the refund gives it back to
   * those, whatever their `unlimited_quota` by then.
   */
  async recordCharge(id: number, quota: number): Promise<void> {
    await this.db
      .updateTable('tasks')
      .set((eb) => ({
        quota,
        token_debited: eb.selectFrom('quota_reservations').select('token_debited').whereRef('quota_reservations.id', '=', 'tasks.request_id'),
        user_debited: eb.selectFrom('quota_reservations').select('user_debited').whereRef('quota_reservations.id', '=', 'tasks.request_id'),
      }))
      .where('id', '=', id)
      .where('quota', 'is', null)
      .execute();
  }

  /** Any caller's task: for `/mj/image/{id}`, which needs no key (the id is unguessable). */
  async findByPublicId(publicId: string): Promise<TaskRow | undefined> {
    return this.db.selectFrom('tasks').selectAll().where('public_id', '=', publicId).executeTakeFirst();
  }

  async findForUser(publicId: string, userId: number): Promise<TaskRow | undefined> {
    return this.db.selectFrom('tasks').selectAll().where('public_id', '=', publicId).where('user_id', '=', userId).executeTakeFirst();
  }

  /** The caller's tasks of one kind among `publicIds` (at most 100 asked at once), in no set order. */
  async findManyForUser(publicIds: readonly string[], userId: number, kind: string): Promise<TaskRow[]> {
    if (publicIds.length === 0) return [];
    return this.db.selectFrom('tasks').selectAll().where('public_id', 'in', [...publicIds]).where('user_id', '=', userId).where('kind', '=', kind).execute();
  }

  /** One user's tasks of every kind, newest first (indexed by user and id, migration 024). */
  async listForUser(userId: number, filter: OwnTaskFilter, request: PageRequest): Promise<Page<OwnTaskRow>> {
    const query = this.ownTasks(userId, filter);
    return pageOfQuery(query, query.select(ownTaskColumns).orderBy('id', 'desc'), request);
  }

  /**
   * One user's Midjourney tasks, newest first, with the proxy's last answer (`result`) that their record
   * is shown from (`GET /api/mj/self`); the same index and filters as `listForUser`.
   */
  async listMjForUser(userId: number, filter: Omit<OwnTaskFilter, 'kind'>, request: PageRequest): Promise<Page<OwnMjTaskRow>> {
    const query = this.ownTasks(userId, { ...filter, kind: 'mj' });
    return pageOfQuery(query, query.select(ownMjTaskColumns).orderBy('id', 'desc'), request);
  }

  private ownTasks(userId: number, filter: OwnTaskFilter) {
    let query = this.db.selectFrom('tasks').where('user_id', '=', userId);
    if (filter.publicId !== undefined) query = query.where('public_id', '=', filter.publicId);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
    if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
    return query;
  }

  async findById(id: number): Promise<TaskRow | undefined> {
    return this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Claims up to `limit` due tasks for one poll pass: unfinished ones whose next poll is due, failed ones
   * whose refund is still owed, and orphans. A task is claimed by moving its lease forward from the value
   * read (one guarded UPDATE each), so of several instances polling at once exactly one gets it.
   */
  async claimDue(query: DueQuery): Promise<TaskRow[]> {
    const { now } = query;
    // Due: unfinished and its next poll come, failed with its refund owed, or an orphan. Repeated in the
    // claim itself: between this read and the claim another instance may have finished the task.
    const due = (eb: ExpressionBuilder<DatabaseSchema, 'tasks'>) =>
      eb.or([
        eb.and([eb('status', 'in', [...unfinishedStatuses]), eb('next_poll_at', '<=', now)]),
        eb.and([eb('status', '=', 'failure'), eb('refunded', '=', 0), eb('next_poll_at', '<=', now)]),
        eb.and([eb('status', '=', 'not_start'), eb('created_at', '<', now - query.orphanAfterMs)]),
      ]);
    const candidates = await this.db
      .selectFrom('tasks')
      .select(['id', 'lease_until'])
      .where(due)
      .where('lease_until', '<', now)
      .orderBy('next_poll_at')
      .limit(query.limit)
      .execute();
    const claimed: TaskRow[] = [];
    for (const candidate of candidates) {
      const result = await this.db
        .updateTable('tasks')
        .set({ lease_until: now + query.leaseMs })
        .where('id', '=', candidate.id)
        .where('lease_until', '=', candidate.lease_until)
        .where(due)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) continue;
      const row = await this.findById(candidate.id);
      if (row !== undefined) claimed.push(row);
    }
    return claimed;
  }

  /**
   * Applies what the poll loop saw, if the task is still in state `from`, and releases its lease. False
   * when another instance changed it first: then this one must not act on the change (bill or refund).
   */
  async applyChange(id: number, from: TaskStatus, change: TaskChange, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set({
        status: change.status,
        progress: change.progress,
        ...(change.result === undefined ? {} : { result: boundTaskAnswer(change.result) }),
        ...(change.failReason === undefined ? {} : { fail_reason: storableReason(change.failReason) }),
        ...(change.completedAt === undefined ? {} : { completed_at: change.completedAt }),
        next_poll_at: change.nextPollAt,
        lease_until: 0,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Asks again later without changing the task (an upstream that could not answer, a refund not yet due). */
  async postpone(id: number, nextPollAt: number, now: number): Promise<void> {
    await this.db.updateTable('tasks').set({ next_poll_at: nextPollAt, lease_until: 0, updated_at: now }).where('id', '=', id).execute();
  }

  /**
   * Gives a failed task's charge back, once: in one transaction, `refunded` 0 → 1 (the guard: a second
   * caller, on any instance, updates nothing and refunds nothing), then the token's and the user's used
   * quota down by the charge and their balances up by it — each only if the charge left it (`token_debited`,
   * `user_debited`: limited at settlement), whatever its `unlimited_quota` now; a row settled before
   * migration 017 (null) goes by the flag now — and the used quota of the channel that accepted the task
   * down, where every settle of its reservation put the charge. The charge is the task's `quota`, or — when a crash came between settling and
   * recording it — its reservation's settled amount and wallets. 'pending' while that reservation is still
   * open (crash recovery settles it); undefined when there is nothing to refund (not failed, or refunded
   * already). `logRow`: the refund's log row, written in the same transaction — a refund is rare and off
   * the hot path, and a row queued in the log writer after the commit died with a process killed within
   * its half-second, which nothing could write back (the refund's own facts are on the task, but not
   * whether its row was written).
   */
  async refundFailed(id: number, now: number, logRow?: (refund: TaskRefund) => LogRow): Promise<TaskRefund | 'pending' | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const task = await trx.selectFrom('tasks').selectAll().where('id', '=', id).where('status', '=', 'failure').where('refunded', '=', 0).executeTakeFirst();
      if (task === undefined) return undefined;
      let quota = task.quota === null ? null : Number(task.quota);
      let { token_debited: tokenDebited, user_debited: userDebited } = task;
      // Every settle of an accepted task's reservation put its charge on the task's channel: the submit's
      // (late or not, its charge recorded here or lost on the way) and crash recovery's (taskChannelId).
      const channelCredited = task.channel_id !== null;
      if (quota === null) {
        const reservation = await trx
          .selectFrom('quota_reservations')
          .select(['state', 'settled_amount', 'token_debited', 'user_debited'])
          .where('id', '=', task.request_id)
          .executeTakeFirst();
        if (reservation !== undefined && reservation.state !== 'settled') return 'pending';
        // The retention sweep keeps such a task's reservation until it is refunded or succeeds
        // (delete-old-rows.ts); none at all means nothing was charged.
        quota = reservation?.settled_amount === null || reservation === undefined ? 0 : Number(reservation.settled_amount);
        tokenDebited = reservation?.token_debited ?? null;
        userDebited = reservation?.user_debited ?? null;
      }
      const claimed = await trx
        .updateTable('tasks')
        .set({ refunded: 1, quota, token_debited: tokenDebited, user_debited: userDebited, updated_at: now })
        .where('id', '=', id)
        .where('refunded', '=', 0)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) return undefined;
      if (quota > 0) {
        await sql`update tokens set remain_quota = ${refundedBalance('remain_quota', tokenDebited, quota)},
          used_quota = used_quota - ${quota} where id = ${task.token_id}`.execute(trx);
        await sql`update users set quota = ${refundedBalance('quota', userDebited, quota)},
          used_quota = used_quota - ${quota} where id = ${task.user_id}`.execute(trx);
        if (channelCredited) await sql`update channels set used_quota = used_quota - ${quota} where id = ${task.channel_id}`.execute(trx);
      }
      const refund = { quota, task: { ...task, refunded: 1, quota, token_debited: tokenDebited, user_debited: userDebited } };
      if (logRow !== undefined) await trx.insertInto('logs').values(logRow(refund)).execute();
      return refund;
    });
  }
}

/**
 * A wallet's balance after a refund of `quota`: up by it when the charge left it, unchanged when it did
 * not; unknown (a row settled before migration 017) goes by the wallet's flag now, as refunds did then.
 */
function refundedBalance(balance: 'remain_quota' | 'quota', debited: number | null, quota: number): RawBuilder<number> {
  const column = sql.ref(balance);
  if (debited === null) return sql<number>`case when unlimited_quota = 1 then ${column} else ${column} + ${quota} end`;
  return Number(debited) === 1 ? sql<number>`${column} + ${quota}` : sql<number>`${column}`;
}
