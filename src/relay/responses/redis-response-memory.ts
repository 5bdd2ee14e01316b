import { Redis } from 'ioredis';
import { LocalResponseMemory, parseRememberedResponse, type MemoryOptions, type RememberedResponse, type ResponseMemory } from './response-memory.js';

const keyPrefix = 'relay:response:';
/**
 * What a forgotten id holds in Redis for the memory's lifetime: a replica whose own copy still has the
 * entry must drop it, not fall back to it as it does for an id Redis has lost.
 */
const forgottenMarker = 'forgotten';

/**
 * Replicas share what they remember through Redis: a conversation's next turn may reach any replica.
 * Each replica keeps its own entries too, read when Redis cannot answer (or has lost the entry). Writes are
 * not awaited (they run before the answer's end reaches the client, off its path).
 */
export class RedisResponseMemory implements ResponseMemory {
  private readonly local: LocalResponseMemory;

  constructor(
    private readonly redis: Redis,
    private readonly options: MemoryOptions & { onError(error: unknown): void },
  ) {
    this.local = new LocalResponseMemory(options);
  }

  remember(id: string, entry: RememberedResponse): void {
    this.local.remember(id, entry);
    this.redis.set(keyPrefix + id, JSON.stringify(entry), 'PX', this.options.ttlMs).catch(this.options.onError);
  }

  rememberEach(ids: readonly string[], entry: RememberedResponse): void {
    if (ids.length === 0) return;
    this.local.rememberEach(ids, entry);
    const text = JSON.stringify(entry);
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.set(keyPrefix + id, text, 'PX', this.options.ttlMs);
    pipeline
      .exec()
      .then((results) => {
        const failed = results?.find(([error]) => error !== null);
        if (failed !== undefined) this.options.onError(failed[0]);
      })
      .catch(this.options.onError);
  }

  /**
   * Redis first: a conversation's entry is rewritten by whichever replica served its last turn, so this
   * replica's copy may be older. Its own copy answers only when Redis cannot.
   */
  async recall(id: string): Promise<RememberedResponse | undefined> {
    try {
      const text = await this.redis.get(keyPrefix + id);
      if (text === forgottenMarker) return this.dropLocal(id);
      const entry = parseRememberedResponse(text);
      if (entry !== undefined) this.local.remember(id, entry);
      return entry ?? this.local.peek(id);
    } catch (error) {
      this.options.onError(error);
      return this.local.peek(id);
    }
  }

  /** One MGET; each id Redis does not answer is read from this replica's own copy. */
  async recallEach(ids: readonly string[]): Promise<(RememberedResponse | undefined)[]> {
    if (ids.length === 0) return [];
    try {
      const texts = await this.redis.mget(ids.map((id) => keyPrefix + id));
      return ids.map((id, index) => {
        if (texts[index] === forgottenMarker) return this.dropLocal(id);
        const entry = parseRememberedResponse(texts[index] ?? null);
        if (entry !== undefined) this.local.remember(id, entry);
        return entry ?? this.local.peek(id);
      });
    } catch (error) {
      this.options.onError(error);
      return ids.map((id) => this.local.peek(id));
    }
  }

  /** Awaited: a replica asked next finds it forgotten, and drops its own copy. */
  async forget(id: string): Promise<void> {
    void this.local.forget(id);
    await this.redis.set(keyPrefix + id, forgottenMarker, 'PX', this.options.ttlMs).catch(this.options.onError);
  }

  private dropLocal(id: string): undefined {
    void this.local.forget(id);
    return undefined;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export function createRedisResponseMemory(redisUrl: string, options: MemoryOptions & { onError(error: unknown): void }): RedisResponseMemory {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 1000 });
  // Errors surface through the commands that fail (onError); the listener keeps ioredis from printing each.
  redis.on('error', () => undefined);
  return new RedisResponseMemory(redis, options);
}
