import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import type { RateCheck } from './rate-limiter.js';

export interface GlobalRateLimits {
  /** Requests per minute from one client IP; 0 = off. */
  ipRpm: number;
  /** Requests / tokens per minute for one user across all their keys; 0 = off. */
  userRpm: number;
  userTpm: number;
}

/** Pure: the rate checks of one relay request: per token (its rate_limit), per user and per IP. */
export function buildRateChecks(caller: AuthenticatedCaller, ip: string, estimatedTokens: number, limits: GlobalRateLimits): RateCheck[] {
  const checks: RateCheck[] = [];
  const perMinute = (key: string, limit: number | undefined, kind: 'requests' | 'tokens') => {
    if (limit === undefined || limit <= 0) return;
    // An estimate above the whole limit would never fit; cap it so one big request per window can pass.
    const cost = kind === 'requests' ? 1 : Math.min(Math.max(estimatedTokens, 0), limit);
    checks.push({ key, limit, windowSeconds: 60, cost, kind });
  };
  perMinute(`ip:${ip}:rpm`, limits.ipRpm, 'requests');
  perMinute(`user:${caller.user.id}:rpm`, limits.userRpm, 'requests');
  perMinute(`user:${caller.user.id}:tpm`, limits.userTpm, 'tokens');
  perMinute(`token:${caller.token.id}:rpm`, caller.token.rateLimit.rpm, 'requests');
  perMinute(`token:${caller.token.id}:tpm`, caller.token.rateLimit.tpm, 'tokens');
  return checks;
}
