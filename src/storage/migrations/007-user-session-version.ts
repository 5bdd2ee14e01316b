import type { Kysely } from 'kysely';

/**
 * A console session carries its user's `session_version` (signed into the cookie); bumping the version
 * (logout, password or role change, disable) ends every session issued before. Existing users start at 0,
 * which is also what a cookie of the previous format (`<id>.<expiry>`) is read as, so an upgrade logs
 * nobody out. Same statement on SQLite, PostgreSQL and MySQL.
 */
export function userSessionVersionMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('users')
        .addColumn('session_version', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
    },
  };
}
