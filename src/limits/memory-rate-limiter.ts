import {
  assertValidAdjustment,
  assertValidRateChecks,
  composeRateDecision,
  fitsWindow,
  isLaterWindow,
  windowMsOf,
  type RateCheck,
  type RateDecision,
  type RateLimiter,
  type RateWindow,
  type RateWindowReading,
} from './rate-limiter.js';

export interface MemoryRateLimiterOptions {
  /**
   * Most windows held at once; the least recently used one is dropped to admit a new key (that key's
   * count restarts, so the cap trades exactness for bounded memory under a flood of distinct IPs).
   */
  maxKeys?: number;
}

interface WindowCounter {
  used: number;
  endsAtMs: number;
  /** The limiter's use counter at this window's last use, and when it took its place in the Map's order. */
  lastUse: number;
  placedAt: number;
}

export const defaultMaxKeys = 100_000;

/** Expired windows examined per call beyond the keys it touches, so the sweep outruns the churn. */
const sweepSlack = 2;

/**
 * Fixed-window counters for one process. Memory is one small record per live key, whatever the limit
 * (new-api kept one timestamp per request and ran out of memory with GLOBAL_API_RATE_LIMIT=1000000,
 * new-api#6732), and never more than `maxKeys` records. Work per check is O(1) and a use changes no Map
 * entry: eviction is second-chance (CLOCK) over the Map's insertion order — a window used since it took
 * its place moves to the back, the first one that was not is dropped. (Moving every window on every use,
 * a delete and a set, churned the Map's tables: 7 per request, most of the limiter's garbage.) A
 * persistent cursor sweeps a few ended windows per call instead of timers per key.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, WindowCounter>();
  private readonly maxKeys: number;
  private sweepCursor: Iterator<[string, WindowCounter]> | undefined;
  /** The eviction hand: a fresh iterator per eviction would step over every slot already deleted at the front. */
  private evictCursor: Iterator<[string, WindowCounter]> | undefined;
  private evicted = 0;
  /** Counts uses: the windows' recency for eviction. */
  private uses = 0;

  constructor(options: MemoryRateLimiterOptions = {}) {
    const maxKeys = options.maxKeys ?? defaultMaxKeys;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) throw new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`);
    this.maxKeys = maxKeys;
  }

  /** Windows currently held (live or not yet swept). */
  get size(): number {
    return this.windows.size;
  }

  /** Live windows dropped to respect `maxKeys` since start (a sign the cap is too small). */
  get evictions(): number {
    return this.evicted;
  }

  async consume(checks: readonly RateCheck[], nowMs: number): Promise<RateDecision> {
    assertValidRateChecks(checks);
    this.sweep(checks.length + sweepSlack, nowMs);
    const live = checks.map((check) => this.liveWindow(check.key, nowMs));
    // Before consuming: `used` as found (plus what earlier checks of the call put on the same key), whether it fits.
    const readings: RateWindowReading[] = checks.map((check, index) => {
      const used = (live[index]?.used ?? 0) + costNamedEarlier(checks, index);
      return { used, resetMs: 0, fits: fitsWindow(used, check.cost, check.limit) };
    });
    const allowed = readings.every((reading) => reading.fits);
    checks.forEach((check, index) => {
      const reading = readings[index] as RateWindowReading;
      const window = allowed ? this.add(check, check.cost, nowMs) : live[index];
      if (allowed && window !== undefined) reading.used = window.used;
      reading.resetMs = window === undefined ? windowMsOf(check) : window.endsAtMs - nowMs;
    });
    return composeRateDecision(checks, readings);
  }

  async adjust(window: RateWindow, delta: number, nowMs: number): Promise<void> {
    assertValidAdjustment(window, delta);
    const live = this.liveWindow(window.key, nowMs);
    if (live === undefined) {
      if (delta > 0) this.add(window, delta, nowMs);
      return;
    }
    if (delta < 0 && window.endsAtMs !== undefined && isLaterWindow(live.endsAtMs, window.endsAtMs, windowMsOf(window))) return;
    live.used = Math.max(0, live.used + delta);
  }

  async close(): Promise<void> {
    this.windows.clear();
    this.sweepCursor = undefined;
    this.evictCursor = undefined;
  }

  /** The key's window if it has not ended, marked used; an ended one is dropped. */
  private liveWindow(key: string, nowMs: number): WindowCounter | undefined {
    const window = this.windows.get(key);
    if (window === undefined) return undefined;
    if (window.endsAtMs <= nowMs) {
      this.windows.delete(key);
      return undefined;
    }
    window.lastUse = ++this.uses;
    return window;
  }

  /** Counts units in the key's window, opening one (and evicting the LRU key at the cap) when none is live. */
  private add(window: RateWindow, units: number, nowMs: number): WindowCounter | undefined {
    const existing = this.windows.get(window.key);
    if (existing !== undefined && existing.endsAtMs > nowMs) {
      existing.used += units;
      return existing;
    }
    if (units === 0) return undefined;
    if (existing === undefined && this.windows.size >= this.maxKeys) this.evictLeastRecentlyUsed(nowMs);
    const use = ++this.uses;
    const opened: WindowCounter = { used: units, endsAtMs: nowMs + windowMsOf(window), lastUse: use, placedAt: use };
    this.windows.delete(window.key);
    this.windows.set(window.key, opened);
    return opened;
  }

  /**
   * Second chance: windows used since they took their place move to the back; the first one not used is
   * dropped. The hand resumes where it stopped (Map iterators survive deletes and see later inserts).
   */
  private evictLeastRecentlyUsed(nowMs: number): void {
    if (this.windows.size === 0) return;
    for (;;) {
      this.evictCursor ??= this.windows.entries();
      const oldest = this.evictCursor.next();
      if (oldest.done === true) {
        this.evictCursor = undefined;
        continue;
      }
      const [key, window] = oldest.value;
      this.windows.delete(key);
      if (window.lastUse === window.placedAt) {
        if (window.endsAtMs > nowMs) this.evicted += 1;
        return;
      }
      window.placedAt = window.lastUse;
      this.windows.set(key, window);
    }
  }

  /** Drops up to `budget` ended windows, resuming where the last call stopped (Map iterators survive deletes). */
  private sweep(budget: number, nowMs: number): void {
    for (let step = 0; step < budget; step += 1) {
      this.sweepCursor ??= this.windows.entries();
      const next = this.sweepCursor.next();
      if (next.done === true) {
        this.sweepCursor = undefined;
        return;
      }
      const [key, window] = next.value;
      if (window.endsAtMs <= nowMs) this.windows.delete(key);
    }
  }
}

/** Units that earlier checks of the same call put on `checks[index]`'s key (a key named twice counts both, as the Redis script does). */
function costNamedEarlier(checks: readonly RateCheck[], index: number): number {
  const key = (checks[index] as RateCheck).key;
  let cost = 0;
  for (let earlier = 0; earlier < index; earlier += 1) {
    const check = checks[earlier] as RateCheck;
    if (check.key === key) cost += check.cost;
  }
  return cost;
}
