import type { Kysely } from 'kysely';

/**
 * A claim of an unknown conversation (`allow_unknown_conversations`) is held by every turn of its user that
 * names the id before the first answer writes its channel — not only by the turn that inserted the row.
 * The row was deleted by whichever of them got no answer, while another of them was answered: the answer's
 * channel then went into a row that was gone, and after the memory's lapse the conversation was anyone's.
 * `holders` counts the turns that hold the claim (conversation-owners-repository.ts): a turn joining it adds
 * one, a turn released unanswered takes one off, and only the last holder's release deletes the row; an
 * answered turn never takes its one off, so an answered claim is never deleted. A row made before this
 * migration (made, or claimed and awaiting its answer) counts one holder, as it had.
 */
export function conversationClaimHoldersMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('conversation_owners').addColumn('holders', 'integer', (column) => column.notNull().defaultTo(1)).execute();
    },
  };
}
