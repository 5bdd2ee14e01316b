/**
 * One limit to check: `cost` units against `limit` per `windowSeconds` under `key`.
 *
 * Windows are fixed and start at the first unit counted under the key (the Redis implementation keeps
 * them as the key's TTL, the memory one as an end time): `limit` units per window, then the key is
 * refused until the window ends. A check fits when the window is not full and `cost` still fits, so a
 * zero-cost check asks "is anything left?" and a cost above `limit` never fits (cap estimates at the
 * limit if one oversized request per window should pass). Keys are the caller's: one key, one window
 * length (`token:12:rpm`, `ip:203.0.113.9:rpm`).
 */
export interface RateCheck {
  key: string;
  limit: number;
  windowSeconds: number;
  /** Non-negative integer units (1 per request; estimated tokens). */
  cost: number;
  /** Names the limit in headers and messages: `requests` or `tokens`. */
  kind: 'requests' | 'tokens';
}

/**
 * The window `adjust` moves: a check without its limit, cost or kind, and — when the units being corrected
 * were counted by a `consume` — when that window ends on the caller's clock (`windowEndOf`), so a refund
 * that arrives after it ended is not given to the next window of the key.
 */
export type RateWindow = Pick<RateCheck, 'key' | 'windowSeconds'> & { endsAtMs?: number };

/** When the window a consumed check was counted in ends, on the caller's clock (to within a second). */
export function windowEndOf(state: RateState, consumedAtMs: number): number {
  return consumedAtMs + state.resetSeconds * 1000;
}

/**
 * Pure: whether the live window of a key, ending at `liveEndsAtMs`, is another window than the one that
 * ended at `countedEndsAtMs`. A key's next window opens only after the previous one ended, so the two ends
 * are at least a window apart; half a window absorbs the rounding of `resetSeconds` and clock drift.
 */
export function isLaterWindow(liveEndsAtMs: number, countedEndsAtMs: number, windowMs: number): boolean {
  return Math.abs(liveEndsAtMs - countedEndsAtMs) > windowMs / 2;
}

export type RateDecision =
  | { allowed: true; states: RateState[] }
  | { allowed: false; exceeded: RateState; retryAfterSeconds: number; states: RateState[] };

/** One check's window after the decision, in the order of the checks. */
export interface RateState {
  kind: 'requests' | 'tokens';
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** In memory on one process; in Redis when REDIS_URL is set so limits hold across every replica. */
export interface RateLimiter {
  /**
   * Consumes every check, or none when any would exceed its limit. `nowMs` is the caller's clock; the
   * Redis implementation ignores it and uses the server's TTLs so replicas with skewed clocks agree.
   */
  consume(checks: readonly RateCheck[], nowMs: number): Promise<RateDecision>;
  /**
   * Adds (or returns, when negative) units after the fact: tokens actually used versus estimated. Never
   * refused; a refund never takes a window below zero, and a refund to a window that already ended is
   * dropped (it must not grant extra units in the next one): the window named by `window.endsAtMs`, else
   * whatever window is live. It may be applied after the promise
   * resolves (Redis batches them per event-loop turn), but ahead of any later `consume` of this limiter.
   */
  adjust(window: RateWindow, delta: number, nowMs: number): Promise<void>;
  close(): Promise<void>;
}

/** What an implementation read of one check's window while deciding. */
export interface RateWindowReading {
  /** Units in the window: after this call's consumption when the decision allowed it, before otherwise. */
  used: number;
  /** Milliseconds until the window ends; the full window when none is open yet. */
  resetMs: number;
  /** Whether this check fits on its own (given earlier checks of the same key in the call). */
  fits: boolean;
}

/** Pure: the one admission rule both implementations apply. */
export function fitsWindow(used: number, cost: number, limit: number): boolean {
  return used < limit && used + cost <= limit;
}

/**
 * Pure: readings → decision. When several checks fail, the one that ends last is reported, since the
 * call cannot pass before every failing window has ended.
 */
export function composeRateDecision(checks: readonly RateCheck[], readings: readonly RateWindowReading[]): RateDecision {
  const states: RateState[] = checks.map((check, index) => {
    const reading = readingAt(readings, index);
    return {
      kind: check.kind,
      limit: check.limit,
      remaining: Math.max(0, Math.floor(check.limit - reading.used)),
      resetSeconds: Math.max(0, Math.ceil(reading.resetMs / 1000)),
    };
  });
  let exceeded: RateState | undefined;
  states.forEach((state, index) => {
    if (!readingAt(readings, index).fits && (exceeded === undefined || state.resetSeconds > exceeded.resetSeconds)) exceeded = state;
  });
  if (exceeded === undefined) return { allowed: true, states };
  return { allowed: false, exceeded, retryAfterSeconds: Math.max(1, exceeded.resetSeconds), states };
}

/** Window length in whole milliseconds (Redis PX takes integers). */
export function windowMsOf(window: RateWindow): number {
  return Math.max(1, Math.round(window.windowSeconds * 1000));
}

/** Faults, thrown: a malformed check is a bug in the caller, not a rate-limit outcome. */
export function assertValidRateChecks(checks: readonly RateCheck[]): void {
  for (const check of checks) {
    assertValidWindow(check);
    if (!Number.isFinite(check.limit) || check.limit < 0) throw new RangeError(`rate check ${check.key}: limit must be a finite number >= 0, got ${check.limit}`);
    if (!Number.isSafeInteger(check.cost) || check.cost < 0) throw new RangeError(`rate check ${check.key}: cost must be an integer >= 0, got ${check.cost}`);
  }
}

export function assertValidAdjustment(window: RateWindow, delta: number): void {
  assertValidWindow(window);
  if (!Number.isSafeInteger(delta)) throw new RangeError(`rate adjustment ${window.key}: delta must be an integer, got ${delta}`);
}

function assertValidWindow(window: RateWindow): void {
  if (typeof window.key !== 'string' || window.key === '') throw new RangeError('rate check: key must be a non-empty string');
  if (!Number.isFinite(window.windowSeconds) || window.windowSeconds <= 0) {
    throw new RangeError(`rate check ${window.key}: windowSeconds must be > 0, got ${window.windowSeconds}`);
  }
}

function readingAt(readings: readonly RateWindowReading[], index: number): RateWindowReading {
  const reading = readings[index];
  if (reading === undefined) throw new Error(`rate limiter returned no reading for check ${index}`);
  return reading;
}
