import type { Kysely } from 'kysely';

/**
 * Two gaps of migration 019's `conversation_owners`:
 * - Its key is varchar(191) (MySQL's indexable length), so a claimed conversation id of 192–256 characters
 *   (the longest the response memory keeps) stayed in the memory alone and was anyone's after a restart.
 *   Such an id is now keyed by its SHA-256 (`sha256:` + 64 hex, conversation-owners-repository.ts) and kept
 *   whole in `long_conversation_id`, which a read compares, so a short id spelling that key is not it.
 * - A row read back after the memory lapsed counted no history, so the first turn after a restart reserved
 *   only its input. `context_tokens` keeps the history the memory counted, written when it has doubled
 *   since the last write (a few writes in a conversation's life, never one per turn): a reloaded entry
 *   reserves twice it, a bound on what the conversation can have reached.
 */
export function conversationOwnersLongIdsAndHistoryMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('conversation_owners').addColumn('long_conversation_id', 'text').execute();
      await db.schema.alterTable('conversation_owners').addColumn('context_tokens', 'bigint', (column) => column.notNull().defaultTo(0)).execute();
    },
  };
}
