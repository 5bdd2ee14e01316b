import type { Selectable } from 'kysely';
import type { ConversationOwnersTable, Database, DialectName } from './database-schema.js';

export type ConversationOwnerRow = Selectable<ConversationOwnersTable>;

/** The longest conversation id the table keeps (its key is varchar(191), MySQL's indexable length); OpenAI's are ~50 characters. */
export const maxStoredConversationIdLength = 191;

/** Who made each OpenAI conversation made or claimed through the gateway, and where (migration 018). */
export class ConversationOwnersRepository {
  constructor(
    private readonly db: Database,
    private readonly dialect: DialectName,
  ) {}

  /** Records a conversation; an id already recorded keeps its first maker (a claim never takes one over). */
  async record(owner: ConversationOwnerRow): Promise<void> {
    if (owner.conversation_id.length > maxStoredConversationIdLength) return;
    const insert = this.db.insertInto('conversation_owners').values(owner);
    if (this.dialect === 'mysql') await insert.ignore().execute();
    else await insert.onConflict((conflict) => conflict.column('conversation_id').doNothing()).execute();
  }

  async find(conversationId: string): Promise<ConversationOwnerRow | undefined> {
    if (conversationId.length > maxStoredConversationIdLength) return undefined;
    return this.db.selectFrom('conversation_owners').selectAll().where('conversation_id', '=', conversationId).executeTakeFirst();
  }

  async delete(conversationId: string): Promise<void> {
    await this.db.deleteFrom('conversation_owners').where('conversation_id', '=', conversationId).execute();
  }
}
