import type { Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/**
 * A user's log rows by time (`GET /api/log/self` and `/stat` with `start`/`end`, the admin usage of one
 * user): through `logs_user_id` (user_id alone) the planner read every row of the user and filtered them
 * by time — on SQLite, 1 M rows of one user in 2 M, 1.7 s for the last day's stat, blocking the gateway's
 * one thread. `(user_id, created_at)` serves both columns, and everything the old index served (its first
 * column is the same). It replaces that index rather than joining it: each index on `logs` is written by
 * every request's log row, so there stay six. Created before the old one is dropped, so no moment lacks one.
 */
export function logsUserIdCreatedAtMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('logs_user_id_created_at').on('logs').columns(['user_id', 'created_at']).execute();
      const drop = db.schema.dropIndex('logs_user_id');
      await (dialect === 'mysql' ? drop.on('logs') : drop).execute();
    },
  };
}
