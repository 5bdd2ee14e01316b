import type { Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/**
 * A user's own log read from the index alone (`GET /api/log/self`'s count, `/stat`'s sum): through
 * `logs_user_id_created_at` the all-time stat (`sum(quota)` over the user's rows) and the count of a list
 * filtered by `token_id` or `model` fetched every row of the user — on MariaDB a full scan, 3.3–7.5 s for
 * 1 M rows of one user in 2 M, ~1 s on PostgreSQL, 0.5–2.9 s on SQLite (BENCHMARKS.md, session 38).
 * `(user_id, created_at, id, token_id, model, quota)` holds every column those read, so they read the
 * user's index entries only. `id` follows `created_at` so the index keeps the list's order (newest request
 * first, then the row id): with `token_id` next to `created_at` a tie would be in token order, and a page
 * sorted. It replaces `logs_user_id_created_at` (its first columns are the same, so it serves everything
 * that one did) rather than joining it: each index on `logs` is written by every request's log row; the
 * wider entries measured no dearer to write. Created before the old one is dropped, so no moment lacks one.
 */
export function logsUserCoveringMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('logs_user_covering').on('logs').columns(['user_id', 'created_at', 'id', 'token_id', 'model', 'quota']).execute();
      const drop = db.schema.dropIndex('logs_user_id_created_at');
      await (dialect === 'mysql' ? drop.on('logs') : drop).execute();
    },
  };
}
