import { Redis } from 'ioredis';
import {
  assertValidAdjustment,
  assertValidRateChecks,
  composeRateDecision,
  windowMsOf,
  type RateCheck,
  type RateDecision,
  type RateLimiter,
  type RateWindow,
  type RateWindowReading,
} from './rate-limiter.js';

/**
 * KEYS: one per check. ARGV: limit, window ms, cost per check. Reads every window, and only when all
 * fit increments them (a new window is created with its TTL, so the window is the key's lifetime).
 * Replies, per check: used, ms until the window ends, fits (1/0); preceded by allowed (1/0).
 * One script = one atomic step on the server, so replicas sharing a key can never overshoot together.
 */
const consumeScript = `
local count = #KEYS
local pending = {}
local readings = {}
local allowed = 1
for index = 1, count do
  local key = KEYS[index]
  local limit = tonumber(ARGV[index * 3 - 2])
  local windowMs = tonumber(ARGV[index * 3 - 1])
  local cost = tonumber(ARGV[index * 3])
  local used = tonumber(redis.call('GET', key) or '0')
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    if ttl == -1 then redis.call('DEL', key) end
    used = 0
    ttl = -1
  end
  used = used + (pending[key] or 0)
  pending[key] = (pending[key] or 0) + cost
  local fits = 0
  if used < limit and used + cost <= limit then fits = 1 else allowed = 0 end
  readings[index] = { used, ttl, fits, windowMs, cost }
end
local reply = { allowed }
for index = 1, count do
  local key = KEYS[index]
  local reading = readings[index]
  local used, ttl, fits, windowMs, cost = reading[1], reading[2], reading[3], reading[4], reading[5]
  if allowed == 1 and cost > 0 then
    if redis.call('EXISTS', key) == 1 then
      used = redis.call('INCRBY', key, cost)
      ttl = redis.call('PTTL', key)
    else
      redis.call('SET', key, cost, 'PX', windowMs)
      used = cost
      ttl = windowMs
    end
  elseif allowed == 1 then
    used = tonumber(redis.call('GET', key) or '0')
  end
  if ttl < 0 then ttl = windowMs end
  reply[#reply + 1] = used
  reply[#reply + 1] = ttl
  reply[#reply + 1] = fits
end
return reply
`;

/**
 * KEYS: one window per adjustment. ARGV: delta, window ms, and the ms the counted window had left when the
 * adjustment was queued (negative once it ended; '' when unknown), per adjustment. Applied in order; a refund never goes below zero nor
 * opens a window, and is dropped when the live window is a later one (its remaining time differs by more
 * than half a window: see isLaterWindow); an addition to an ended window opens a new one.
 */
const adjustScript = `
for index = 1, #KEYS do
  local key = KEYS[index]
  local delta = tonumber(ARGV[index * 3 - 2])
  local windowMs = tonumber(ARGV[index * 3 - 1])
  local expectedTtl = tonumber(ARGV[index * 3])
  local ttl = redis.call('PTTL', key)
  if ttl == -2 or ttl == -1 then
    if ttl == -1 then redis.call('DEL', key) end
    if delta > 0 then redis.call('SET', key, delta, 'PX', windowMs) end
  elseif delta < 0 and expectedTtl ~= nil and math.abs(ttl - expectedTtl) > windowMs / 2 then
    -- a refund for a window that has ended: not the live one's to take
  else
    local used = redis.call('INCRBY', key, delta)
    if used < 0 then redis.call('INCRBY', key, -used) end
  end
end
return 0
`;

interface RateLimitCommands {
  relayRateConsume(numberOfKeys: number, ...keysAndArguments: (string | number)[]): Promise<number[]>;
  relayRateAdjust(numberOfKeys: number, ...keysAndArguments: (string | number)[]): Promise<number>;
}

export interface RedisRateLimiterOptions {
  /** Prepended to every key; tests use a unique one per run. */
  keyPrefix?: string;
  /** Whether close() ends the connection (true when the limiter created it). */
  ownsConnection?: boolean;
}

export const defaultRedisKeyPrefix = 'unified-relay:rate:';

/** A script blocks Redis while it runs: a turn with more adjustments than this sends several calls. */
const maxAdjustmentsPerCall = 256;

/**
 * Limits shared by every replica. Redis's own TTLs are the clock (`nowMs` only measures how long a refund's
 * window had left), so replicas with skewed clocks agree. Every key of one call must live on one node: on
 * Redis Cluster, wrap a shared part of the keys in a {hash tag} (a batch of adjustments spans requests: give the whole prefix one).
 * A consume error is thrown: whether to fail open is the caller's choice.
 *
 * Adjustments are corrections, so they stay off the request's path: `adjust` queues and resolves at once,
 * and everything queued during one event-loop turn (every token window of a settlement, and of every
 * other settlement in that turn) goes in one script call. A consume sends what is queued first, on the
 * same connection, so it counts it. A failed batch is dropped, as callers dropped a failed adjust before.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis & RateLimitCommands;
  private readonly keyPrefix: string;
  private readonly ownsConnection: boolean;
  private queued: { key: string; delta: number; windowMs: number; expectedTtlMs: number | '' }[] = [];
  private flushScheduled = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(redis: Redis, options: RedisRateLimiterOptions = {}) {
    redis.defineCommand('relayRateConsume', { lua: consumeScript });
    redis.defineCommand('relayRateAdjust', { lua: adjustScript });
    this.redis = redis as Redis & RateLimitCommands;
    this.keyPrefix = options.keyPrefix ?? defaultRedisKeyPrefix;
    this.ownsConnection = options.ownsConnection ?? false;
  }

  async consume(checks: readonly RateCheck[], _nowMs: number): Promise<RateDecision> {
    assertValidRateChecks(checks);
    this.sendQueuedAdjustments();
    if (checks.length === 0) return { allowed: true, states: [] };
    const keys = checks.map((check) => this.keyPrefix + check.key);
    const parameters = checks.flatMap((check) => [check.limit, windowMsOf(check), check.cost]);
    const reply = await this.redis.relayRateConsume(keys.length, ...keys, ...parameters);
    const readings: RateWindowReading[] = checks.map((_check, index) => ({
      used: Number(reply[1 + index * 3]),
      resetMs: Number(reply[2 + index * 3]),
      fits: Number(reply[3 + index * 3]) === 1,
    }));
    return composeRateDecision(checks, readings);
  }

  async adjust(window: RateWindow, delta: number, nowMs: number): Promise<void> {
    assertValidAdjustment(window, delta);
    if (delta === 0) return;
    // The caller's clock only measures how long the counted window had left (both ends on one clock).
    const expectedTtlMs = window.endsAtMs === undefined ? '' : Math.round(window.endsAtMs - nowMs);
    this.queued.push({ key: this.keyPrefix + window.key, delta, windowMs: windowMsOf(window), expectedTtlMs });
    if (this.queued.length >= maxAdjustmentsPerCall) this.sendQueuedAdjustments();
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // setImmediate, not a microtask: a caller awaiting adjust for one window after another still lands
    // all of them in the same batch.
    setImmediate(() => {
      this.flushScheduled = false;
      this.sendQueuedAdjustments();
    });
  }

  /** Resolves once every adjustment queued so far has been applied (or its batch has failed). */
  async drain(): Promise<void> {
    this.sendQueuedAdjustments();
    await Promise.all(this.inFlight);
  }

  async close(): Promise<void> {
    await this.drain();
    if (this.ownsConnection) await this.redis.quit();
  }

  private sendQueuedAdjustments(): void {
    if (this.queued.length === 0) return;
    const batch = this.queued;
    this.queued = [];
    const keys = batch.map((adjustment) => adjustment.key);
    const parameters = batch.flatMap((adjustment) => [adjustment.delta, adjustment.windowMs, adjustment.expectedTtlMs]);
    const sent = this.redis.relayRateAdjust(keys.length, ...keys, ...parameters).then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(sent);
    void sent.then(() => this.inFlight.delete(sent));
  }
}

/** How long a limiter command may wait for Redis before the request is served without limits. */
export const rateLimiterCommandTimeoutMs = 1000;

/** A limiter with a connection of its own (the composition root's choice when REDIS_URL is set). */
export function createRedisRateLimiter(redisUrl: string, options: Omit<RedisRateLimiterOptions, 'ownsConnection'> = {}): RedisRateLimiter {
  // A stalled Redis (connections open, no answers) must not hold requests: a command unanswered in 1 s
  // fails, and admission serves without limits (fail open, admit-request.ts). Connection errors surface
  // through the commands that fail; the listener only keeps ioredis from printing each one.
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2, commandTimeout: rateLimiterCommandTimeoutMs });
  redis.on('error', () => undefined);
  return new RedisRateLimiter(redis, { ...options, ownsConnection: true });
}
