/**
 * What the gateway remembers of a Responses answer a Responses channel stored (`store` not false), so a
 * later request that continues it (`previous_response_id`, or the `conversation` it was part of) goes to
 * the channel that holds it and reserves the context the upstream will read back: without it, any channel
 * of the model could be chosen (and answer "not found"), and a one-line turn on a 100k-token history
 * would reserve one line. The answer's output items (`msg_…`, `fc_…`, `rs_…`) are remembered under their
 * own ids with the same owner: an `item_reference` has the upstream read one back.
 */
export interface RememberedResponse {
  /** The channel that answered, and so holds the stored response. */
  channelId: number;
  /**
   * Which of the channel's keys made it (key-fingerprint.ts; the key itself is never kept): each key may be
   * another account, and OpenAI stores a response on the account (project) that made it. Absent in entries
   * written before it was kept.
   */
  keyFingerprint?: string;
  /** The user whose request made it: no other user's request may continue it. */
  userId: number;
  /**
   * Input plus output tokens of that answer: what the next turn reads back before its own input. For an
   * output item, the answer's output: the most one item of it can hold.
   */
  contextTokens: number;
  /**
   * A conversation's entry: the history its `conversation_owners` row holds (conversation-owners.ts writes
   * it when `contextTokens` has more than doubled it). Absent elsewhere, and in entries written before it was kept.
   */
  historyWritten?: number;
}

export interface ResponseMemory {
  remember(id: string, entry: RememberedResponse): void;
  /** Several ids with one entry (an answer's output items): one write to Redis. */
  rememberEach(ids: readonly string[], entry: RememberedResponse): void;
  /** The entry, or undefined when this gateway (or, with Redis, none of its replicas) made no such response recently. */
  recall(id: string): Promise<RememberedResponse | undefined>;
  /** Each id's entry, in order (an input's item ids): one read from Redis. */
  recallEach(ids: readonly string[]): Promise<(RememberedResponse | undefined)[]>;
  /** Drops the entry (a conversation deleted through the gateway); with Redis, settled once Redis has dropped it too. */
  forget(id: string): Promise<void>;
  close(): Promise<void>;
}

export interface MemoryOptions {
  /** Entries kept; the least recently used goes first. */
  maxEntries: number;
  /** How long an entry is kept after it was last written. */
  ttlMs: number;
  now(): number;
}

interface Held {
  entry: RememberedResponse;
  expiresAt: number;
}

/** One process's memory: bounded in entries and in age. */
export class LocalResponseMemory implements ResponseMemory {
  private readonly entries = new Map<string, Held>();

  constructor(private readonly options: MemoryOptions) {}

  remember(id: string, entry: RememberedResponse): void {
    this.entries.delete(id);
    this.entries.set(id, { entry, expiresAt: this.options.now() + this.options.ttlMs });
    if (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  rememberEach(ids: readonly string[], entry: RememberedResponse): void {
    for (const id of ids) this.remember(id, entry);
  }

  /** Synchronous read, for the Redis memory's local tier. */
  peek(id: string): RememberedResponse | undefined {
    const held = this.entries.get(id);
    if (held === undefined) return undefined;
    if (held.expiresAt <= this.options.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return held.entry;
  }

  recall(id: string): Promise<RememberedResponse | undefined> {
    return Promise.resolve(this.peek(id));
  }

  recallEach(ids: readonly string[]): Promise<(RememberedResponse | undefined)[]> {
    return Promise.resolve(ids.map((id) => this.peek(id)));
  }

  forget(id: string): Promise<void> {
    this.entries.delete(id);
    return Promise.resolve();
  }

  get size(): number {
    return this.entries.size;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** An entry as stored outside the process (Redis): checked field by field when read back. */
export function parseRememberedResponse(text: string | null): RememberedResponse | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    const { channelId, userId, contextTokens, keyFingerprint, historyWritten } = value;
    if (!Number.isSafeInteger(channelId) || !Number.isSafeInteger(userId) || !Number.isSafeInteger(contextTokens)) return undefined;
    const entry: RememberedResponse = { channelId: channelId as number, userId: userId as number, contextTokens: contextTokens as number };
    // A malformed fingerprint only loses the key: the channel is still known.
    if (typeof keyFingerprint === 'string' && keyFingerprint !== '' && keyFingerprint.length <= 64) entry.keyFingerprint = keyFingerprint;
    if (Number.isSafeInteger(historyWritten)) entry.historyWritten = historyWritten as number;
    return entry;
  } catch {
    return undefined;
  }
}
