import { sql, type Insertable, type Selectable } from 'kysely';
import type { Database, LogsTable } from './database-schema.js';
import { pageOfQuery } from './page-of-query.js';
import { parseJsonOr, type Page, type PageRequest } from './paging.js';

export type LogRow = Insertable<LogsTable>;

/** The `style` of a failed task's refund row: money given back, not a request made. */
export const refundLogStyle = 'task-refund';

export interface LogFilter {
  /** unix ms, inclusive */
  from?: number;
  /** unix ms, exclusive */
  to?: number;
  userId?: number;
  tokenId?: number;
  model?: string;
  channelId?: number;
  status?: number;
  requestId?: string;
}

export interface LogEntry extends Omit<Selectable<LogsTable>, 'attempts' | 'warnings'> {
  attempts: unknown[];
  warnings: string[];
}

/** The filters a user may put on their own log: every admin filter but whose rows and which channel. */
export type OwnLogFilter = Omit<LogFilter, 'userId' | 'channelId'>;

/**
 * What a user sees of their own log rows (`GET /api/log/self`), column by column. Shown: what they asked
 * and were answered (request id, time, their token, model, style, path, stream, status), what they were
 * billed on and charged (every token count, web searches, quota, usage source), how long it took, the
 * warnings about what of their request a conversion changed or dropped, and the client address (theirs:
 * a leaked key shows up as a strange address). Left out: the row id (a count of every user's requests),
 * the user id (theirs), the channel, the upstream model (the operator's routing, as new-api hides the
 * channel from a user's view), the attempts (channels, upstream messages, socket addresses), and `error`,
 * which can hold what the client was never shown — an upstream's own words after `The upstream said:`,
 * a task's upstream id — while the answer itself already gave the client its error.
 */
const ownLogColumns = [
  'request_id',
  'created_at',
  'token_id',
  'token_name',
  'model',
  'style',
  'path',
  'is_stream',
  'status',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'audio_input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'audio_output_tokens',
  'image_input_tokens',
  'image_output_tokens',
  'web_search_calls',
  'quota',
  'latency_ms',
  'first_token_ms',
  'warnings',
  'usage_source',
  'ip',
] as const satisfies ReadonlyArray<keyof LogsTable>;

export interface OwnLogEntry extends Omit<Pick<Selectable<LogsTable>, (typeof ownLogColumns)[number]>, 'warnings'> {
  warnings: string[];
  /**
   * The public id of the task the request submitted (its refund row's too: the submit's request id), or
   * null: a submit whose client left after the upstream's 2xx is found by it.
   */
  task_id: string | null;
}

export interface UsageAggregate {
  day: string;
  model: string;
  requests: number;
  quota: number;
  input_tokens: number;
  output_tokens: number;
}

/**
 * A user's own totals (`GET /api/log/self/stat`, new-api's `Stat`): `quota` is the net charge of the rows
 * the filter matches (a task refund row is in it, negative: the sum is what was kept), `rpm` and `tpm` the
 * requests made and their input plus output tokens in the last 60 s before now, whatever the time filters.
 */
export interface OwnLogStat {
  quota: number;
  rpm: number;
  tpm: number;
}

/** How long `rpm` and `tpm` look back (new-api: the last 60 seconds). */
export const statWindowMs = 60_000;

/** The quota kept by a set of rows: a refund row is in it (negative), so the sum is what was charged net. */
const netQuota = sql<number | string | null>`sum(quota)`;
/** The requests a set of rows made: COUNT skips the NULL a refund row's CASE gives (SQLite, PostgreSQL and MySQL alike). */
const requestsMade = sql<number | string>`count(case when style <> ${refundLogStyle} then 1 end)`;

export class LogsRepository {
  /**
   * `reader` runs the console's reads (`filtered`: the lists, the stat, the usage totals): on a SQLite file
   * a read-only connection in a worker thread (DatabaseHandle.reader), so they never hold the event loop.
   */
  constructor(
    private readonly db: Database,
    private readonly reader: Database = db,
  ) {}

  async insertMany(rows: LogRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.insertInto('logs').values(rows).execute();
  }

  private filtered(filter: LogFilter) {
    let query = this.reader.selectFrom('logs');
    if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.tokenId !== undefined) query = query.where('token_id', '=', filter.tokenId);
    if (filter.model !== undefined) query = query.where('model', '=', filter.model);
    if (filter.channelId !== undefined) query = query.where('channel_id', '=', filter.channelId);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.requestId !== undefined) query = query.where('request_id', '=', filter.requestId);
    return query;
  }

  /**
   * Rows newest first, in the order an index of the filter serves, so a page is read in order rather than
   * all matching rows sorted: one user's rows (`user_id`) newest request first, as their own list
   * (`listForUser`); any other filter by row id, the order of their single-column indexes (on SQLite and
   * MySQL an index's entries end with the row id).
   */
  async list(filter: LogFilter, request: PageRequest): Promise<Page<LogEntry>> {
    const query = this.filtered(filter);
    const ordered = filter.userId === undefined ? query.orderBy('id', 'desc') : query.orderBy('created_at', 'desc').orderBy('id', 'desc');
    const page = await pageOfQuery(query, ordered.selectAll(), request);
    return { ...page, items: page.items.map((row) => ({ ...row, attempts: parseJsonOr<unknown[]>(row.attempts, []), warnings: parseJsonOr<string[]>(row.warnings, []) })) };
  }

  /**
   * One user's rows, newest request first (`created_at`, then the row id among equal times), through the
   * admin list's filters, in the user's view (ownLogColumns). That order is the index's (user_id,
   * created_at, id, token_id, model, quota; migration 026): a page is read from it in order, with or without
   * a time range, where ordering by id alone sorted all the user's rows; the count of a list filtered by
   * `token_id` or `model` reads the index alone.
   */
  async listForUser(userId: number, filter: OwnLogFilter, request: PageRequest): Promise<Page<OwnLogEntry>> {
    const query = this.filtered({ ...filter, userId });
    const page = await pageOfQuery(query, query.select(ownLogColumns).orderBy('created_at', 'desc').orderBy('id', 'desc'), request);
    const taskIds = await this.taskIdsOf(userId, page.items.map((row) => row.request_id));
    return { ...page, items: page.items.map((row) => ({ ...row, warnings: parseJsonOr<string[]>(row.warnings, []), task_id: taskIds.get(row.request_id) ?? null })) };
  }

  /** The user's tasks submitted by these requests (a task's `request_id` is its submit's; indexed, migration 015). */
  private async taskIdsOf(userId: number, requestIds: string[]): Promise<Map<string, string>> {
    if (requestIds.length === 0) return new Map();
    const tasks = await this.db.selectFrom('tasks').select(['request_id', 'public_id']).where('user_id', '=', userId).where('request_id', 'in', [...new Set(requestIds)]).execute();
    return new Map(tasks.map((task) => [task.request_id, task.public_id]));
  }

  /**
   * One user's `OwnLogStat` in two queries, both on the user's rows within their times (index
   * logs_user_covering, migration 026: only the rows in the time range are read, and the quota's sum — under
   * a `token_id` or `model` filter too — from the index's entries, not the rows): the quota over the filter,
   * as `listForUser` counts its rows; the requests and tokens of the last `statWindowMs` before `now`, over
   * the filter less its time bounds (new-api's rpm and tpm are always the current minute's).
   */
  async statForUser(userId: number, filter: OwnLogFilter, now: number): Promise<OwnLogStat> {
    const { quota } = await this.filtered({ ...filter, userId }).select(netQuota.as('quota')).executeTakeFirstOrThrow();
    const { from: _from, to: _to, ...untimed } = filter;
    const recent = await this.filtered({ ...untimed, userId, from: now - statWindowMs, to: now + 1 })
      .select((eb) => [requestsMade.as('rpm'), eb.fn.sum<number | string | null>('input_tokens').as('input_tokens'), eb.fn.sum<number | string | null>('output_tokens').as('output_tokens')])
      .executeTakeFirstOrThrow();
    return { quota: Number(quota ?? 0), rpm: Number(recent.rpm), tpm: Number(recent.input_tokens ?? 0) + Number(recent.output_tokens ?? 0) };
  }

  /**
   * Per-model, per-UTC-day totals for the console's charts, grouped by the database. A refund row is in
   * the quota (negative: the sum is what was kept) but not in `requests`, which counts requests made.
   */
  async aggregateByModelAndDay(filter: LogFilter): Promise<UsageAggregate[]> {
    // `x - x % d` floors to the day in all three dialects (their date functions differ).
    const dayStart = sql<number>`(created_at - created_at % 86400000)`;
    const rows = await this.filtered(filter)
      .select((eb) => [
        dayStart.as('day_start'),
        'model',
        requestsMade.as('requests'),
        netQuota.as('quota'),
        eb.fn.sum<number>('input_tokens').as('input_tokens'),
        eb.fn.sum<number>('output_tokens').as('output_tokens'),
      ])
      .groupBy([dayStart, 'model'])
      .orderBy(dayStart)
      .orderBy('model')
      .execute();
    return rows.map((row) => ({
      day: new Date(Number(row.day_start)).toISOString().slice(0, 10),
      model: row.model ?? '',
      requests: Number(row.requests),
      quota: Number(row.quota),
      input_tokens: Number(row.input_tokens),
      output_tokens: Number(row.output_tokens),
    }));
  }
}
