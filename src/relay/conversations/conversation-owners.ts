import type { ConversationOwnerRecord } from '../../storage/conversation-owners-repository.js';
import type { RememberedResponse, ResponseMemory } from '../responses/response-memory.js';
import { RetriedWrites, type RetrySchedule } from '../../storage/retried-writes.js';

/** Where a conversation's owner is kept for good: the `conversation_owners` table (migrations 019, 020, 023). */
export interface ConversationOwnerStore {
  /** True when this call wrote the row: the arbiter between two claims of one id. */
  insertIfAbsent(owner: ConversationOwnerRecord): Promise<boolean>;
  find(conversationId: string): Promise<ConversationOwnerRecord | undefined>;
  delete(conversationId: string): Promise<void>;
  answerClaim(conversationId: string, userId: number, channelId: number, keyFingerprint: string): Promise<void>;
  /** True when the row was this user's claim awaiting its first answer: one more turn holds it. */
  joinClaim(conversationId: string, userId: number): Promise<boolean>;
  releaseClaim(conversationId: string, userId: number): Promise<void>;
  noteHistory(conversationId: string, contextTokens: number): Promise<void>;
}

/** How a claim's answer whose write failed is tried again (ConversationOwners.answerClaim). */
export const answerRetry: RetrySchedule = { firstDelayMs: 500, maxDelayMs: 30_000, tries: 12 };

/** Who a conversation is for, and where it is: its maker, its channel, and the fingerprint of the key that made it. */
export type ConversationOwner = Required<Pick<RememberedResponse, 'userId' | 'channelId' | 'keyFingerprint'>>;

/**
 * Pure: the history the first turn after a reload reserves. The table's history is written when the counted
 * one has doubled since the last write, so the conversation holds at most twice what was written.
 */
export const reloadedHistoryBound = (writtenHistory: number): number => 2 * writtenHistory;

/**
 * The owners of the conversations made (or claimed) through the gateway. The response memory answers first
 * — a turn naming a conversation it knows never reaches the database — and the table, written when a
 * conversation is made (or claimed) and deleted with it, answers when the memory has forgotten (a restart
 * without Redis, 72 idle hours, 50,000 newer entries). An entry read back from the table is remembered
 * again, with twice the history last written (reloadedHistoryBound): the memory's own count is gone, and the
 * next turn must not reserve less than the upstream can read back.
 */
export class ConversationOwners {
  /** Claims' first answers being written, and those whose write failed waiting for their next try. */
  private readonly answerWrites = new RetriedWrites(answerRetry);

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
    // A claim whose first answer is still to come: its maker's, on no channel yet (not remembered: the answer will be).
    if (row.channelId === 0) return { userId: row.userId, channelId: 0, contextTokens: 0 };
    const entry: RememberedResponse = { userId: row.userId, channelId: row.channelId, keyFingerprint: row.keyFingerprint, contextTokens: reloadedHistoryBound(row.contextTokens), historyWritten: row.contextTokens };
    this.memory.remember(conversationId, entry);
    return entry;
  }

  /**
   * A conversation made through the gateway: remembered, and recorded before its id is answered (a failed
   * write is reported and leaves it to the memory alone: the conversation exists upstream either way).
   */
  async recordMade(conversationId: string, owner: ConversationOwner, contextTokens: number): Promise<void> {
    this.memory.remember(conversationId, { ...owner, contextTokens, historyWritten: contextTokens });
    await this.store
      .insertIfAbsent({ conversationId, ...owner, contextTokens, createdAt: this.options.now() })
      .catch((error: unknown) => this.options.onError(error, conversationId));
  }

  /**
   * A conversation neither the memory nor the table knows, named by a turn of `userId`
   * (`allow_unknown_conversations`) — or this user's claim of it still awaiting its first answer (channel 0):
   * claimed in the table before any upstream call, which only one user's claim wins (insert-if-absent). A
   * turn of the same user finding its claim there holds it too (`holders`), so that another of its turns
   * released unanswered does not delete the row this one's answer goes into. False when another user's
   * claim (or row) has it: that turn is refused as any other user's. A table that cannot be written is
   * reported and leaves the claim to the memory alone.
   */
  async claim(conversationId: string, userId: number): Promise<boolean> {
    try {
      // At most three rounds: a row gone between the insert and the join was released by its last holder.
      for (let round = 0; round < 3; round += 1) {
        if (await this.store.insertIfAbsent({ conversationId, userId, channelId: 0, keyFingerprint: '', contextTokens: 0, createdAt: this.options.now() })) return true;
        if (await this.store.joinClaim(conversationId, userId)) return true;
        // Answered meanwhile (its maker's, on its channel now) or another user's: decided; gone: claim again.
        const row = await this.store.find(conversationId);
        if (row !== undefined) return row.userId === userId;
      }
      return false;
    } catch (error) {
      this.options.onError(error, conversationId);
      return true;
    }
  }

  /**
   * A claim's first answer: the channel and key that hold the conversation, off the answer's path. A write
   * that fails is tried again (answerRetry: after half a second, doubling up to 30 s, 12 tries in all, about
   * three minutes), and once more at shutdown: a row left at channel 0 is a conversation its
   * maker cannot reach on the Conversations routes once the memory has forgotten it. The write changes
   * only this user's row still at channel 0, so a late try cannot undo anything.
   */
  answerClaim(conversationId: string, owner: ConversationOwner): void {
    this.answerWrites.start({
      write: () => this.store.answerClaim(conversationId, owner.userId, owner.channelId, owner.keyFingerprint),
      onError: (error) => this.options.onError(error, conversationId),
    });
  }

  /** Shutdown: each answer still to write gets one more try at once, waited for (its failure is reported). */
  async close(): Promise<void> {
    await this.answerWrites.close();
  }

  /** A claim whose request got no answer (refused at admission, no channel answered): this turn lets go; the last holder's release leaves the id to the next request. */
  async releaseClaim(conversationId: string, userId: number): Promise<void> {
    await this.store.releaseClaim(conversationId, userId).catch((error: unknown) => this.options.onError(error, conversationId));
  }

  /**
   * The history a conversation's turn counted (`contextTokens`) against what the table holds (`written`):
   * written, off the answer's path, once it has more than doubled — a few writes in a conversation's life,
   * not one per turn. Answers what the table then holds, for the memory's entry.
   */
  noteHistory(conversationId: string, contextTokens: number, written: number): number {
    if (contextTokens <= reloadedHistoryBound(written)) return written;
    this.store.noteHistory(conversationId, contextTokens).catch((error: unknown) => this.options.onError(error, conversationId));
    return contextTokens;
  }

  /** A conversation deleted through the gateway: gone from the table, then from the memory (and Redis). */
  async forget(conversationId: string): Promise<void> {
    await this.store.delete(conversationId).catch((error: unknown) => this.options.onError(error, conversationId));
    await this.memory.forget(conversationId);
  }
}
