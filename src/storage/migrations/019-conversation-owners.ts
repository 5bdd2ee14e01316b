import type { Kysely } from 'kysely';

/**
 * OpenAI conversations (`POST /v1/conversations`, docs/behaviour.md "Stored responses"): every user of a
 * channel shares its upstream account, so the upstream cannot tell whose a conversation is, and the gateway
 * refuses a conversation id it does not know. The response memory (72 hours, 50,000 entries, gone on a
 * restart without Redis) held the maker alone, so a restart made every conversation unknown to its own
 * maker. This table keeps, for each conversation made (or claimed) through the gateway, who made it, on
 * which channel and with which of its keys, until it is deleted through the gateway: OpenAI keeps a
 * conversation with no expiry. Read only when the memory has no entry.
 */
export function conversationOwnersMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('conversation_owners')
        .addColumn('conversation_id', 'varchar(191)', (column) => column.primaryKey())
        .addColumn('user_id', 'integer', (column) => column.notNull())
        .addColumn('channel_id', 'integer', (column) => column.notNull())
        .addColumn('key_fingerprint', 'varchar(32)', (column) => column.notNull())
        .addColumn('created_at', 'bigint', (column) => column.notNull())
        .execute();
    },
  };
}
