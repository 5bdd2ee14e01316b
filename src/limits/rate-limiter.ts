/** One limit to check: `cost` units against `limit` per `windowSeconds` under `key`. */
export interface RateCheck {
  key: string;
  limit: number;
  windowSeconds: number;
  cost: number;
  /** Names the limit in headers and messages: `requests` or `tokens`. */
  kind: 'requests' | 'tokens';
}

export type RateDecision =
  | { allowed: true; states: RateState[] }
  | { allowed: false; exceeded: RateState; retryAfterSeconds: number; states: RateState[] };

export interface RateState {
  kind: 'requests' | 'tokens';
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** In memory on one process; in Redis when REDIS_URL is set so limits hold across every replica. */
export interface RateLimiter {
  /** Consumes every check, or none when any would exceed its limit. */
  consume(checks: RateCheck[], nowMs: number): Promise<RateDecision>;
  /** Adds (or returns, when negative) units after the fact: tokens actually used versus estimated. */
  adjust(check: Omit<RateCheck, 'limit'>, delta: number, nowMs: number): Promise<void>;
  close(): Promise<void>;
}
