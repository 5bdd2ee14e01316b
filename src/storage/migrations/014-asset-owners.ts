import type { Kysely } from 'kysely';

/**
 * Seedance 2 assets (spec §4.9 `/api/asset/createMedia`): every caller of a group shares the channel's
 * upstream account, so the upstream cannot tell whose an asset is. The gateway keeps, for each asset it
 * created, who asked, on which channel and with which of its keys: `get` answers only its maker, from
 * that channel. Durable (not the Responses memory, which forgets after 72 hours, on restart or when full).
 */
export function assetOwnersMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('asset_owners')
        .addColumn('asset_id', 'varchar(191)', (column) => column.primaryKey())
        .addColumn('user_id', 'integer', (column) => column.notNull())
        .addColumn('channel_id', 'integer', (column) => column.notNull())
        .addColumn('key_fingerprint', 'varchar(32)', (column) => column.notNull())
        .addColumn('created_at', 'bigint', (column) => column.notNull())
        .execute();
    },
  };
}
