import { createHash } from 'node:crypto';
import type { ExpressionBuilder } from 'kysely';
import type { Database, DatabaseSchema, DialectName } from './database-schema.js';

/** One conversation's owner as the table keeps it (conversation-owners.ts reads and writes these). */
export interface ConversationOwnerRecord {
  conversationId: string;
  userId: number;
  /** 0 while a claim awaits its first answer. */
  channelId: number;
  keyFingerprint: string;
  /** The history last written, in tokens. */
  contextTokens: number;
  createdAt: number;
}

/** The longest conversation id kept as the table's key as it is (varchar(191), MySQL's indexable length); OpenAI's are ~50 characters. */
export const maxPlainConversationKeyLength = 191;

/**
 * Pure: the table's key of a conversation id: the id itself, or over 191 characters `sha256:` and its hash
 * (71 characters; the whole id goes to `long_conversation_id`, migration 020).
 */
export function conversationKeyOf(conversationId: string): string {
  return conversationId.length <= maxPlainConversationKeyLength ? conversationId : `sha256:${createHash('sha256').update(conversationId).digest('hex')}`;
}

/** The condition of a statement on the user's claim of the id that still awaits its first answer (channel 0). */
const claimOf =
  (conversationId: string, userId: number) =>
  (eb: ExpressionBuilder<DatabaseSchema, 'conversation_owners'>) =>
    eb.and([eb('conversation_id', '=', conversationKeyOf(conversationId)), eb('user_id', '=', userId), eb('channel_id', '=', 0)]);

/** Who made each OpenAI conversation made or claimed through the gateway, and where (migrations 019, 020, 023). */
export class ConversationOwnersRepository {
  constructor(
    private readonly db: Database,
    private readonly dialect: DialectName,
  ) {}

  /**
   * Records a conversation unless its id is recorded already, in one statement: whether this call wrote it
   * is the arbiter between two claims of one id (an id recorded keeps its first maker).
   */
  async insertIfAbsent(owner: ConversationOwnerRecord): Promise<boolean> {
    const key = conversationKeyOf(owner.conversationId);
    const values = {
      conversation_id: key,
      long_conversation_id: key === owner.conversationId ? null : owner.conversationId,
      user_id: owner.userId,
      channel_id: owner.channelId,
      key_fingerprint: owner.keyFingerprint,
      context_tokens: owner.contextTokens,
      created_at: owner.createdAt,
    };
    const insert = this.db.insertInto('conversation_owners').values(values);
    // INSERT IGNORE also turns a too-long value into a truncated one: every value here fits its column.
    const result = this.dialect === 'mysql' ? await insert.ignore().executeTakeFirst() : await insert.onConflict((conflict) => conflict.column('conversation_id').doNothing()).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** The id's row; not a row whose key merely compares equal (a short id spelling a hashed key, MySQL's case-blind collation). */
  async find(conversationId: string): Promise<ConversationOwnerRecord | undefined> {
    const row = await this.db.selectFrom('conversation_owners').selectAll().where('conversation_id', '=', conversationKeyOf(conversationId)).executeTakeFirst();
    if (row === undefined || (row.long_conversation_id ?? row.conversation_id) !== conversationId) return undefined;
    return {
      conversationId,
      userId: Number(row.user_id),
      channelId: Number(row.channel_id),
      keyFingerprint: row.key_fingerprint,
      contextTokens: Number(row.context_tokens),
      createdAt: Number(row.created_at),
    };
  }

  async delete(conversationId: string): Promise<void> {
    await this.db.deleteFrom('conversation_owners').where('conversation_id', '=', conversationKeyOf(conversationId)).execute();
  }

  /** A claim's first answer: the channel and key that hold the conversation (a claim answered already keeps its own). */
  async answerClaim(conversationId: string, userId: number, channelId: number, keyFingerprint: string): Promise<void> {
    await this.db.updateTable('conversation_owners').set({ channel_id: channelId, key_fingerprint: keyFingerprint }).where(claimOf(conversationId, userId)).execute();
  }

  /**
   * Another turn of the claim's user holds it too (one statement): true when the row was a claim of this user
   * still awaiting its first answer. False when it is answered, another user's, or gone (its last holder
   * released it between this turn's insert and this update: the caller claims again).
   */
  async joinClaim(conversationId: string, userId: number): Promise<boolean> {
    const result = await this.db
      .updateTable('conversation_owners')
      .set((eb) => ({ holders: eb('holders', '+', 1) }))
      .where(claimOf(conversationId, userId))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * A turn holding a claim got no answer: it lets go of the claim, and the last holder's release deletes the
   * row (the id is left for the first request that is answered). An answered claim keeps its row. One
   * statement when this turn was the only holder (the usual case); else its one is taken off, and the row
   * deleted should that have left none (another holder released between the two statements: each release
   * takes exactly one off, by the delete of a last holder or by the update).
   */
  async releaseClaim(conversationId: string, userId: number): Promise<void> {
    const claim = claimOf(conversationId, userId);
    const deleted = await this.db.deleteFrom('conversation_owners').where(claim).where('holders', '=', 1).executeTakeFirst();
    if (Number(deleted.numDeletedRows) > 0) return;
    const released = await this.db
      .updateTable('conversation_owners')
      .set((eb) => ({ holders: eb('holders', '-', 1) }))
      .where(claim)
      .where('holders', '>', 0)
      .executeTakeFirst();
    if (Number(released.numUpdatedRows) === 0) return;
    await this.db.deleteFrom('conversation_owners').where(claim).where('holders', '<=', 0).execute();
  }

  /** The history counted so far, when larger than the one written (one statement: replicas may race). */
  async noteHistory(conversationId: string, contextTokens: number): Promise<void> {
    await this.db
      .updateTable('conversation_owners')
      .set({ context_tokens: contextTokens })
      .where('conversation_id', '=', conversationKeyOf(conversationId))
      .where('context_tokens', '<', contextTokens)
      .execute();
  }
}
