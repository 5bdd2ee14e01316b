import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/** The first schema. Written once for three dialects: only the id column and long text differ. */
export function initialMigration(dialect: DialectName) {
  const idColumn = <T extends string>(table: CreateTableBuilder<T, never>) =>
    dialect === 'postgres'
      ? table.addColumn('id', 'serial', (column) => column.primaryKey())
      : table.addColumn('id', 'integer', (column) => column.primaryKey().autoIncrement());
  // MySQL cannot index TEXT and limits key length, so indexed strings are varchar(191).
  const key = 'varchar(191)';
  const text = dialect === 'mysql' ? sql`mediumtext` : sql`text`;
  const zero = (column: ColumnDefinitionBuilder) => column.notNull().defaultTo(0);

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('users'))
        .addColumn('username', key, (column) => column.notNull().unique())
        .addColumn('password_hash', 'varchar(255)')
        .addColumn('role', 'varchar(16)', (column) => column.notNull())
        .addColumn('group_name', 'varchar(64)', (column) => column.notNull())
        .addColumn('quota', 'bigint', zero)
        .addColumn('unlimited_quota', 'integer', zero)
        .addColumn('used_quota', 'bigint', zero)
        .addColumn('request_count', 'bigint', zero)
        .addColumn('status', 'integer', (column) => column.notNull().defaultTo(1))
        .addColumn('created_at', 'bigint', zero)
        .addColumn('updated_at', 'bigint', zero)
        .execute();

      await idColumn(db.schema.createTable('tokens'))
        .addColumn('user_id', 'integer', (column) => column.notNull())
        .addColumn('name', 'varchar(128)', (column) => column.notNull())
        .addColumn('key_hash', 'varchar(64)', (column) => column.notNull().unique())
        .addColumn('key_prefix', 'varchar(16)', (column) => column.notNull())
        .addColumn('group_name', 'varchar(64)')
        .addColumn('remain_quota', 'bigint', zero)
        .addColumn('used_quota', 'bigint', zero)
        .addColumn('unlimited_quota', 'integer', zero)
        .addColumn('model_limits', text)
        .addColumn('expires_at', 'bigint', zero)
        .addColumn('status', 'integer', (column) => column.notNull().defaultTo(1))
        .addColumn('rate_limit_rpm', 'integer')
        .addColumn('rate_limit_tpm', 'integer')
        .addColumn('request_count', 'bigint', zero)
        .addColumn('created_at', 'bigint', zero)
        .addColumn('updated_at', 'bigint', zero)
        .addUniqueConstraint('tokens_user_name_unique', ['user_id', 'name'])
        .execute();

      await idColumn(db.schema.createTable('channels'))
        .addColumn('name', key, (column) => column.notNull().unique())
        .addColumn('type', 'varchar(32)', (column) => column.notNull())
        .addColumn('base_url', 'varchar(1024)', (column) => column.notNull())
        .addColumn('keys_encrypted', text, (column) => column.notNull())
        .addColumn('models', text, (column) => column.notNull())
        .addColumn('groups', text, (column) => column.notNull())
        .addColumn('priority', 'integer', zero)
        .addColumn('weight', 'integer', (column) => column.notNull().defaultTo(1))
        .addColumn('model_mapping', text, (column) => column.notNull())
        .addColumn('settings', text, (column) => column.notNull())
        .addColumn('status', 'integer', (column) => column.notNull().defaultTo(1))
        .addColumn('auto_disable', 'integer', (column) => column.notNull().defaultTo(1))
        .addColumn('status_reason', text)
        .addColumn('used_quota', 'bigint', zero)
        .addColumn('request_count', 'bigint', zero)
        .addColumn('created_at', 'bigint', zero)
        .addColumn('updated_at', 'bigint', zero)
        .execute();

      await db.schema
        .createTable('prices')
        .addColumn('model', key, (column) => column.primaryKey())
        .addColumn('input', 'double precision')
        .addColumn('output', 'double precision')
        .addColumn('cache_read', 'double precision')
        .addColumn('cache_write', 'double precision')
        .addColumn('per_call', 'double precision')
        .addColumn('per_second', 'double precision')
        .addColumn('updated_at', 'bigint', zero)
        .execute();

      await db.schema
        .createTable('groups')
        .addColumn('name', 'varchar(64)', (column) => column.primaryKey())
        .addColumn('ratio', 'double precision', (column) => column.notNull().defaultTo(1))
        .addColumn('updated_at', 'bigint', zero)
        .execute();

      await db.schema
        .createTable('options')
        .addColumn('key', key, (column) => column.primaryKey())
        .addColumn('value', text, (column) => column.notNull())
        .execute();

      await db.schema
        .createTable('quota_reservations')
        .addColumn('id', 'varchar(64)', (column) => column.primaryKey())
        .addColumn('token_id', 'integer', (column) => column.notNull())
        .addColumn('user_id', 'integer', (column) => column.notNull())
        .addColumn('amount', 'bigint', zero)
        .addColumn('owner', 'varchar(128)', (column) => column.notNull())
        .addColumn('state', 'varchar(16)', (column) => column.notNull())
        .addColumn('settled_amount', 'bigint')
        .addColumn('created_at', 'bigint', zero)
        .addColumn('settled_at', 'bigint')
        .execute();
      await db.schema.createIndex('quota_reservations_state').on('quota_reservations').column('state').execute();

      await idColumn(db.schema.createTable('logs'))
        .addColumn('request_id', 'varchar(64)', (column) => column.notNull())
        .addColumn('created_at', 'bigint', zero)
        .addColumn('user_id', 'integer')
        .addColumn('token_id', 'integer')
        .addColumn('token_name', 'varchar(128)')
        .addColumn('channel_id', 'integer')
        .addColumn('model', key)
        .addColumn('upstream_model', key)
        .addColumn('style', 'varchar(32)', (column) => column.notNull())
        .addColumn('path', 'varchar(255)', (column) => column.notNull())
        .addColumn('is_stream', 'integer', zero)
        .addColumn('status', 'integer', zero)
        .addColumn('input_tokens', 'bigint', zero)
        .addColumn('cache_read_tokens', 'bigint', zero)
        .addColumn('cache_write_tokens', 'bigint', zero)
        .addColumn('output_tokens', 'bigint', zero)
        .addColumn('reasoning_tokens', 'bigint', zero)
        .addColumn('quota', 'bigint', zero)
        .addColumn('latency_ms', 'integer', zero)
        .addColumn('first_token_ms', 'integer')
        .addColumn('attempts', text, (column) => column.notNull())
        .addColumn('warnings', text, (column) => column.notNull())
        .addColumn('usage_source', 'varchar(16)', (column) => column.notNull())
        .addColumn('ip', 'varchar(64)')
        .addColumn('error', text)
        .execute();
      for (const column of ['created_at', 'user_id', 'token_id', 'model', 'channel_id', 'request_id'] as const) {
        await db.schema.createIndex(`logs_${column}`).on('logs').column(column).execute();
      }
    },
  };
}
