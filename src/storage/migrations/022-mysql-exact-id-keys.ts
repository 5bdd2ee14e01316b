import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/**
 * MySQL and MariaDB compare a varchar by its collation, and a database's default (utf8mb4_general_ci,
 * utf8mb4_0900_ai_ci) is case-blind: `asset_AbC` found the row of `asset_abc`, and an insert of one was
 * ignored as a duplicate of the other. The columns that key a row by an upstream's or the gateway's public
 * id compare exactly from here on (utf8mb4_bin, as SQLite and PostgreSQL always did; this is a no-op there):
 * - `asset_owners.asset_id` (migration 014): a Seedance asset id, whose owner alone may read it.
 * - `conversation_owners.conversation_id` (019): a conversation claimed under one case was refused to its
 *   claimant when another user's row held the other case (the repository's exact re-check kept the row's
 *   maker from answering, but the insert was still ignored).
 * - `tasks.public_id` (010): `task_` + 32 of [A-Za-z0-9], looked up without a key by `/mj/image/{id}`.
 * The key and unique index stay; the ids are ASCII, so no stored value changes, and no two rows can become
 * equal (a case-blind unique key already kept case variants apart). Request ids (reservations, log and task
 * `request_id`) are the gateway's lowercase hex and need no change.
 */
export function mysqlExactIdKeysMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'mysql') return;
      for (const statement of mysqlStatements) await sql.raw(statement).execute(db);
    },
  };
}

const exact = 'character set utf8mb4 collate utf8mb4_bin not null';
const mysqlStatements = [
  `alter table asset_owners modify asset_id varchar(191) ${exact}`,
  `alter table conversation_owners modify conversation_id varchar(191) ${exact}`,
  `alter table tasks modify public_id varchar(64) ${exact}`,
];
