import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/**
 * SQLite only: fewer B-tree pages written per reserve and settle. Every page a transaction changes is one
 * WAL frame (two pwrite calls) on commit, and with one request at a time every reserve and every settle is
 * its own commit: file writes were a third of the gateway's CPU per request (BENCHMARKS.md, session 5).
 *
 * - `without rowid`: the reservation id is the table's own key, so an insert writes one B-tree instead of
 *   the row's table and the primary key's separate index.
 * - The index on `state` becomes a partial index of the open reservations, which is all that recovery
 *   reads (`state = 'reserved'`, by age). Settling removes its entry instead of moving it to the ever
 *   growing 'settled' part of a full index, and the partial index stays a page or two.
 *
 * Same columns, same rows: the ledger and every query are unchanged. PostgreSQL and MySQL keep their
 * schema (their ledgers are stored routines, one round trip whatever the page count).
 */
export function sqliteReservationPagesMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      const statements = [
        `create table quota_reservations_next (
          id varchar(64) not null primary key,
          token_id integer not null,
          user_id integer not null,
          amount bigint not null default 0,
          owner varchar(128) not null,
          state varchar(16) not null,
          settled_amount bigint,
          created_at bigint not null default 0,
          settled_at bigint
        ) without rowid`,
        `insert into quota_reservations_next (id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at)
          select id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at from quota_reservations`,
        `drop table quota_reservations`,
        `alter table quota_reservations_next rename to quota_reservations`,
        `create index quota_reservations_open on quota_reservations (created_at) where state = 'reserved'`,
      ];
      for (const statement of statements) await sql.raw(statement).execute(db);
    },
  };
}
