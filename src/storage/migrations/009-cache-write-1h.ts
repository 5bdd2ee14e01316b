import type { Kysely } from 'kysely';

/**
 * Anthropic bills writes to its 1-hour prompt cache at twice the input price and 5-minute writes at 1.25×
 * (new-api-behaviour.md §10.2: gateways that charge both alike). A price may now name the 1-hour rate
 * (`prices.cache_write_1h`; unset, such writes keep the `cache_write` price, as before), and each log row
 * records how many of its cache writes were 1-hour ones (`logs.cache_write_1h_tokens`), so a charge can
 * be recomputed from its row. Adding a column with a constant default is a metadata change on SQLite,
 * PostgreSQL 11+, MySQL 8 and MariaDB 10.3+: the logs table is not rewritten.
 */
export function cacheWrite1hMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('prices').addColumn('cache_write_1h', 'double precision').execute();
      await db.schema
        .alterTable('logs')
        .addColumn('cache_write_1h_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
        .execute();
    },
  };
}
