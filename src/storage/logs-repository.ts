import { sql, type Insertable, type Selectable } from 'kysely';
import type { Database, LogsTable } from './database-schema.js';
import { offsetOf, parseJsonOr, type Page, type PageRequest } from './paging.js';

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

export interface UsageAggregate {
  day: string;
  model: string;
  requests: number;
  quota: number;
  input_tokens: number;
  output_tokens: number;
}

export class LogsRepository {
  constructor(private readonly db: Database) {}

  async insertMany(rows: LogRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.insertInto('logs').values(rows).execute();
  }

  private filtered(filter: LogFilter) {
    let query = this.db.selectFrom('logs');
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

  async list(filter: LogFilter, request: PageRequest): Promise<Page<LogEntry>> {
    const query = this.filtered(filter);
    const rows = await query.selectAll().orderBy('id', 'desc').limit(request.pageSize).offset(offsetOf(request)).execute();
    const { count } = await query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    return {
      items: rows.map((row) => ({ ...row, attempts: parseJsonOr<unknown[]>(row.attempts, []), warnings: parseJsonOr<string[]>(row.warnings, []) })),
      total: Number(count),
      page: request.page,
      page_size: request.pageSize,
    };
  }

  /**
   * Per-model, per-UTC-day totals for the console's charts, grouped by the database. A refund row is in
   * the quota (negative: the sum is what was kept) but not in `requests`, which counts requests made.
   */
  async aggregateByModelAndDay(filter: LogFilter): Promise<UsageAggregate[]> {
    // `x - x % d` floors to the day in all three dialects (their date functions differ).
    const dayStart = sql<number>`(created_at - created_at % 86400000)`;
    // COUNT skips the NULL a refund row's CASE gives (SQLite, PostgreSQL and MySQL alike).
    const requestsMade = sql<number>`count(case when style <> ${refundLogStyle} then 1 end)`;
    const rows = await this.filtered(filter)
      .select((eb) => [
        dayStart.as('day_start'),
        'model',
        requestsMade.as('requests'),
        eb.fn.sum<number>('quota').as('quota'),
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
