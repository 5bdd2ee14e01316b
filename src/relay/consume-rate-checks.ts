import { GatewayError } from '../errors/gateway-error.js';
import { rateLimitHeaders } from '../limits/rate-limit-headers.js';
import { windowEndOf, type RateCheck, type RateDecision } from '../limits/rate-limiter.js';
import type { CountedRateCheck } from './correct-token-windows.js';
import type { RelayServices } from './relay-services.js';

/** What a request's rate checks took: the windows counted, the client's headers, and what the log should know. */
export interface ConsumedRateChecks {
  rateChecks: CountedRateCheck[];
  rateHeaders: Record<string, string>;
  warnings: string[];
}

/** A request no limit applies to: nothing taken, no headers. */
export function unlimited(): ConsumedRateChecks {
  return { rateChecks: [], rateHeaders: {}, warnings: [] };
}

/**
 * Takes a request's rate-limit units, all or none: a 429 with Retry-After and x-ratelimit-* headers when a
 * window is full. A limiter that cannot be reached lets the request through with a warning (rate limits
 * protect capacity, not money). Shared by admission (admit-request.ts) and the free routes.
 */
export async function consumeRateChecks(services: Pick<RelayServices, 'rateLimiter' | 'now'>, checks: readonly RateCheck[]): Promise<ConsumedRateChecks> {
  if (checks.length === 0) return unlimited();
  const warnings: string[] = [];
  let decision: RateDecision | undefined;
  const consumedAt = services.now();
  try {
    decision = await services.rateLimiter.consume(checks, consumedAt);
  } catch (error) {
    warnings.push(`rate limiter unavailable: ${(error as Error).message}`);
  }
  if (decision !== undefined && !decision.allowed) {
    throw new GatewayError('rate_limited', `Rate limit reached: ${decision.exceeded.limit} ${decision.exceeded.kind} per minute. Retry after ${decision.retryAfterSeconds} s.`, {
      headers: rateLimitHeaders(decision),
    });
  }
  const states = decision?.states;
  const rateChecks = checks.map((check, index) => {
    const state = states?.[index];
    return { check, endsAtMs: state === undefined ? undefined : windowEndOf(state, consumedAt) };
  });
  return { rateChecks, rateHeaders: decision === undefined ? {} : rateLimitHeaders(decision), warnings };
}
