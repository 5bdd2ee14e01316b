import { Redis } from 'ioredis';
import { LocalResponseMemory, parseRememberedResponse, type MemoryOptions, type RememberedResponse, type ResponseMemory } from './response-memory.js';

const keyPrefix = 'relay:response:';

/**
 * Replicas share what they remember through Redis: a conversation's next turn may reach any replica.
 * Each replica keeps its own entries too, so a turn that comes back to it reads no Redis. Writes are not
 * awaited (they run after the answer); a read that Redis cannot serve is a miss, which the request
 * survives as it would without the memory.
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

  async recall(id: string): Promise<RememberedResponse | undefined> {
    const known = this.local.peek(id);
    if (known !== undefined) return known;
    try {
      const entry = parseRememberedResponse(await this.redis.get(keyPrefix + id));
      if (entry !== undefined) this.local.remember(id, entry);
      return entry;
    } catch (error) {
      this.options.onError(error);
      return undefined;
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export function createRedisResponseMemory(redisUrl: string, options: MemoryOptions & { onError(error: unknown): void }): RedisResponseMemory {
  return new RedisResponseMemory(new Redis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 1000 }), options);
}
