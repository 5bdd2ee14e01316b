import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/**
 * Asynchronous tasks (spec §4.9: video): one row per task a client submitted, from before its upstream
 * call to its end. The row names the reservation its charge was settled from (`request_id`, the request's
 * id) and, once settled, the charge itself (`quota`), so a failed task is refunded exactly that, once
 * (`refunded` goes 0 → 1 in the refund's own transaction). Poll loops on any number of replicas share the
 * work through `lease_until`: a row is polled by whoever moves its lease forward first.
 */
export function tasksMigration(dialect: DialectName) {
  const key = 'varchar(191)';
  const text = dialect === 'mysql' ? sql`mediumtext` : sql`text`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const table = dialect === 'postgres' ? db.schema.createTable('tasks').addColumn('id', 'serial', (column) => column.primaryKey()) : db.schema.createTable('tasks').addColumn('id', 'integer', (column) => column.primaryKey().autoIncrement());
      await table
        .addColumn('public_id', 'varchar(64)', (column) => column.notNull().unique())
        .addColumn('kind', 'varchar(16)', (column) => column.notNull())
        .addColumn('request_id', 'varchar(64)', (column) => column.notNull())
        .addColumn('user_id', 'integer', (column) => column.notNull())
        .addColumn('token_id', 'integer', (column) => column.notNull())
        .addColumn('channel_id', 'integer')
        .addColumn('key_fingerprint', 'varchar(32)')
        .addColumn('model', key, (column) => column.notNull())
        .addColumn('upstream_model', key)
        .addColumn('upstream_id', 'varchar(255)')
        .addColumn('status', 'varchar(16)', (column) => column.notNull())
        .addColumn('progress', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('properties', text, (column) => column.notNull())
        .addColumn('result', text)
        .addColumn('fail_reason', text)
        .addColumn('quota', 'bigint')
        .addColumn('refunded', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('lease_until', 'bigint', (column) => column.notNull().defaultTo(0))
        .addColumn('next_poll_at', 'bigint', (column) => column.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (column) => column.notNull())
        .addColumn('updated_at', 'bigint', (column) => column.notNull())
        .addColumn('completed_at', 'bigint')
        .execute();
      // The poll loop's question: which unfinished (or unrefunded failed) tasks are due.
      await db.schema.createIndex('tasks_due').on('tasks').columns(['status', 'next_poll_at']).execute();
    },
  };
}
