import type { ConversationOwnerRow } from '../../storage/conversation-owners-repository.js';
import type { RememberedResponse, ResponseMemory } from '../responses/response-memory.js';

/** Where a conversation's owner is kept for good: the `conversation_owners` table (migration 018). */
export interface ConversationOwnerStore {
  record(owner: ConversationOwnerRow): Promise<void>;
  find(conversationId: string): Promise<ConversationOwnerRow | undefined>;
  delete(conversationId: string): Promise<void>;
}

/** Who a conversation is for, and where it is: its maker, its channel, and the fingerprint of the key that made it. */
export type ConversationOwner = Required<Pick<RememberedResponse, 'userId' | 'channelId' | 'keyFingerprint'>>;

/**
 * The owners of the conversations made (or claimed) through the gateway. The response memory answers first
 * — a turn naming a conversation it knows never reaches the database — and the table, written once when a
 * conversation is made and deleted with it, answers when the memory has forgotten (a restart without
 * Redis, 72 idle hours, 50,000 newer entries). An entry read back from the table is remembered again, with
 * no history counted: how much the upstream holds was the memory's, and is gone with it.
 */
export class ConversationOwners {
  constructor(
    private readonly memory: ResponseMemory,
    private readonly store: ConversationOwnerStore,
    private readonly options: { now(): number; onError(error: unknown, conversationId: string): void },
  ) {}

  async recall(conversationId: string): Promise<RememberedResponse | undefined> {
    const remembered = await this.memory.recall(conversationId);
    if (remembered !== undefined) return remembered;
    const row = await this.store.find(conversationId);
    if (row === undefined) return undefined;
    const entry: RememberedResponse = { userId: Number(row.user_id), channelId: Number(row.channel_id), keyFingerprint: row.key_fingerprint, contextTokens: 0 };
    this.memory.remember(conversationId, entry);
    return entry;
  }

  /**
   * A conversation made through the gateway: remembered, and recorded before its id is answered (a failed
   * write is reported and leaves it to the memory alone: the conversation exists upstream either way).
   */
  async recordMade(conversationId: string, owner: ConversationOwner, contextTokens: number): Promise<void> {
    this.memory.remember(conversationId, { ...owner, contextTokens });
    await this.persist(conversationId, owner);
  }

  /**
   * A conversation made outside the gateway, claimed by the first turn that named it
   * (`allow_unknown_conversations`): the turn remembers it; this records it, off the answer's path.
   */
  recordClaimed(conversationId: string, owner: ConversationOwner): void {
    void this.persist(conversationId, owner);
  }

  /** A conversation deleted through the gateway: gone from the table, then from the memory (and Redis). */
  async forget(conversationId: string): Promise<void> {
    await this.store.delete(conversationId).catch((error: unknown) => this.options.onError(error, conversationId));
    await this.memory.forget(conversationId);
  }

  private persist(conversationId: string, owner: ConversationOwner): Promise<void> {
    return this.store
      .record({ conversation_id: conversationId, user_id: owner.userId, channel_id: owner.channelId, key_fingerprint: owner.keyFingerprint, created_at: this.options.now() })
      .catch((error: unknown) => this.options.onError(error, conversationId));
  }
}
