import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import type { SqliteGroupCommit } from '../storage/sqlite-group-commit.js';
import { refundLogStyle, type LogRow } from '../storage/logs-repository.js';
import type { LogRowSink } from './log-writer.js';

/** Every column a log row may carry, in the order of the prepared statement's parameters. */
const columns = [
  'request_id', 'created_at', 'user_id', 'token_id', 'token_name', 'channel_id', 'model', 'upstream_model', 'style', 'path', 'is_stream', 'status',
  'input_tokens', 'cache_read_tokens', 'cache_write_tokens', 'cache_write_1h_tokens', 'audio_input_tokens', 'output_tokens', 'reasoning_tokens', 'audio_output_tokens', 'image_input_tokens', 'image_output_tokens', 'web_search_calls', 'quota', 'latency_ms', 'first_token_ms',
  'attempts', 'warnings', 'usage_source', 'ip', 'error',
] as const satisfies readonly (keyof LogRow)[];

/**
 * Log rows on the embedded database: one prepared single-row INSERT per row, run as one operation of the
 * ledger's group commit. The rows share the transaction (and the commit) of the reserves and settles
 * queued in the same event-loop turn, instead of a query-builder INSERT of up to 100 rows compiled, prepared
 * and committed on its own (BENCHMARKS.md: ~7 % of the gateway's CPU at 50 connections).
 *
 * Rows that waited long enough for another node to write them back (`insertManyOnce`) go through their
 * reservations' claims as insert-log-rows-once.ts does on the other databases, row by row in the same
 * kind of operation: the group commit's transaction holds the write lock from its BEGIN IMMEDIATE, so
 * what a row's checks read is what its claim and insert change. The statements are prepared on the
 * first such batch, which a live node never has.
 */
export function sqliteLogRowSink(connection: SqliteConnection, groupCommit: SqliteGroupCommit): LogRowSink {
  const insert = connection.prepare(`insert into logs (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
  let claims: ClaimStatements | undefined;
  return {
    insertMany(rows) {
      if (rows.length === 0) return Promise.resolve();
      return groupCommit.runWithNext(() => {
        for (const row of rows) insertRow(insert, row);
      });
    },
    insertManyOnce(rows, now) {
      if (rows.length === 0) return Promise.resolve();
      claims ??= prepareClaims(connection);
      const statements = claims;
      return groupCommit.runWithNext(() => {
        for (const row of rows) {
          if (row.style === refundLogStyle) {
            if (statements.refunded.get(row.request_id, refundLogStyle) === undefined) insertRow(insert, row);
            continue;
          }
          const reservation = statements.reservation.get(row.request_id) as { log_recovered_at: number | null } | undefined;
          if (reservation !== undefined && reservation.log_recovered_at !== null) continue;
          if (statements.logged.get(row.request_id, refundLogStyle) !== undefined) continue;
          if (reservation !== undefined) statements.claim.run(now, row.request_id);
          insertRow(insert, row);
        }
      });
    },
  };
}

interface ClaimStatements {
  reservation: Statement;
  logged: Statement;
  refunded: Statement;
  claim: Statement;
}

function prepareClaims(connection: SqliteConnection): ClaimStatements {
  return {
    reservation: connection.prepare('select log_recovered_at from quota_reservations where id = ?'),
    logged: connection.prepare('select 1 from logs where request_id = ? and style <> ? limit 1'),
    refunded: connection.prepare('select 1 from logs where request_id = ? and style = ? limit 1'),
    claim: connection.prepare('update quota_reservations set log_recovered_at = ? where id = ? and log_recovered_at is null'),
  };
}

/**
 * The row's values as arguments, in the order of `columns` (the test reads every column back): bound from
 * the call's arguments, not looked up by name in an array of keys (a megamorphic load per column) and then
 * read back element by element by the driver.
 */
function insertRow(insert: Statement, row: LogRow): void {
  insert.run(
    row.request_id, row.created_at, row.user_id ?? null, row.token_id ?? null, row.token_name ?? null, row.channel_id ?? null, row.model ?? null,
    row.upstream_model ?? null, row.style, row.path, row.is_stream, row.status, row.input_tokens, row.cache_read_tokens, row.cache_write_tokens,
    row.cache_write_1h_tokens, row.audio_input_tokens, row.output_tokens, row.reasoning_tokens, row.audio_output_tokens, row.image_input_tokens, row.image_output_tokens, row.web_search_calls, row.quota, row.latency_ms, row.first_token_ms ?? null, row.attempts, row.warnings, row.usage_source,
    row.ip ?? null, row.error ?? null,
  );
}
