import type { Database as SqliteConnection } from 'better-sqlite3';
import type { SqliteGroupCommit } from '../storage/sqlite-group-commit.js';
import type { LogRow } from '../storage/logs-repository.js';
import type { LogRowSink } from './log-writer.js';

/** Every column a log row may carry, in the order of the prepared statement's parameters. */
const columns = [
  'request_id', 'created_at', 'user_id', 'token_id', 'token_name', 'channel_id', 'model', 'upstream_model', 'style', 'path', 'is_stream', 'status',
  'input_tokens', 'cache_read_tokens', 'cache_write_tokens', 'output_tokens', 'reasoning_tokens', 'quota', 'latency_ms', 'first_token_ms',
  'attempts', 'warnings', 'usage_source', 'ip', 'error',
] as const satisfies readonly (keyof LogRow)[];

/**
 * Log rows on the embedded database: one prepared single-row INSERT per row, run as one operation of the
 * ledger's group commit. The rows share the transaction (and the commit) of the reserves and settles
 * queued in the same event-loop turn, instead of a query-builder INSERT of up to 100 rows compiled, prepared
 * and committed on its own (BENCHMARKS.md: ~7 % of the gateway's CPU at 50 connections).
 */
export function sqliteLogRowSink(connection: SqliteConnection, groupCommit: SqliteGroupCommit): LogRowSink {
  const insert = connection.prepare(`insert into logs (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
  const values: unknown[] = new Array(columns.length);
  return {
    insertMany(rows) {
      if (rows.length === 0) return Promise.resolve();
      return groupCommit.run(() => {
        for (const row of rows) {
          for (let index = 0; index < columns.length; index += 1) values[index] = row[columns[index] as keyof LogRow] ?? null;
          insert.run(values);
        }
      });
    },
  };
}
