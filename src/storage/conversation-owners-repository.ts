import { createHash } from 'node:crypto';
import type { Database, DialectName } from './database-schema.js';

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

/** Who made each OpenAI conversation made or claimed through the gateway, and where (migrations 019, 020). */
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
    await this.db
      .updateTable('conversation_owners')
      .set({ channel_id: channelId, key_fingerprint: keyFingerprint })
      .where('conversation_id', '=', conversationKeyOf(conversationId))
      .where('user_id', '=', userId)
      .where('channel_id', '=', 0)
      .execute();
  }

  /** A claim whose request got no answer: the id is left for the first request that is answered. */
  async releaseClaim(conversationId: string, userId: number): Promise<void> {
    await this.db.deleteFrom('conversation_owners').where('conversation_id', '=', conversationKeyOf(conversationId)).where('user_id', '=', userId).where('channel_id', '=', 0).execute();
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
