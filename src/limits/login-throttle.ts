import { MemoryRateLimiter } from './memory-rate-limiter.js';
import type { RateCheck } from './rate-limiter.js';

export interface LoginThrottleOptions {
  /** Failed logins allowed per window and key (new-api's CRITICAL_RATE_LIMIT: 20 per 20 minutes). */
  maxFailures?: number;
  windowSeconds?: number;
  /** Most keys held; past it the least recently used is forgotten (bounded memory under a flood of names). */
  maxKeys?: number;
}

export type LoginAdmission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts failed console logins per key (the route uses client IP + username) in this process's memory. A
 * key with `maxFailures` failures in its window is refused until the window, which starts at the first
 * attempt, ends; a successful login does not reset it. Each attempt takes its slot when admitted, before
 * the (slow) password check, and a success gives it back: guesses sent all at once are counted as they
 * arrive, not after they fail. Guessing passwords thus costs one window per 20 guesses and per name; one
 * IP trying many names is bounded by the IP rate limit, not here.
 */
export class LoginThrottle {
  private readonly failures: MemoryRateLimiter;
  private readonly maxFailures: number;
  private readonly windowSeconds: number;

  constructor(options: LoginThrottleOptions = {}) {
    this.maxFailures = options.maxFailures ?? 20;
    this.windowSeconds = options.windowSeconds ?? 20 * 60;
    this.failures = new MemoryRateLimiter({ maxKeys: options.maxKeys ?? 10_000 });
  }

  /** Whether a login under `key` may be tried now; when it may, the attempt counts as a failure until {@link succeeded}. */
  async admit(key: string, nowMs: number): Promise<LoginAdmission> {
    const decision = await this.failures.consume([this.checkOf(key, 1)], nowMs);
    return decision.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: decision.retryAfterSeconds };
  }

  /** The admitted attempt under `key` logged in: its slot is given back. */
  async succeeded(key: string, nowMs: number): Promise<void> {
    await this.failures.adjust(this.checkOf(key, 1), -1, nowMs);
  }

  private checkOf(key: string, cost: number): RateCheck {
    return { key, limit: this.maxFailures, windowSeconds: this.windowSeconds, cost, kind: 'requests' };
  }
}
