import type { RateCheck, RateLimiter } from '../limits/rate-limiter.js';

/** A check admission consumed, and when the window it was counted in ends (undefined: the limiter was unreachable). */
export interface CountedRateCheck {
  check: RateCheck;
  endsAtMs: number | undefined;
}

/**
 * Moves every tokens window a request was admitted with from its estimate to the tokens it used — 0 for a
 * request refused after the rate check (402) — in the window it was counted in: a refund that comes after
 * that window ended is dropped by the limiter, not given to the next one. Not awaited: a limiter takes the
 * adjustment when called (ahead of any later consume, rate-limiter.ts), and a failure only leaves the
 * window at the estimate.
 */
export function correctTokenWindows(limiter: RateLimiter, counted: readonly CountedRateCheck[], usedTokens: number, nowMs: number): void {
  for (const { check, endsAtMs } of counted) {
    // Served while the limiter was unreachable: nothing was counted, so nothing is corrected (a refund of
    // the estimate would be given to whatever window is live when the limiter is back).
    if (check.kind !== 'tokens' || endsAtMs === undefined) continue;
    const delta = usedTokens - check.cost;
    if (delta !== 0) void limiter.adjust({ key: check.key, windowSeconds: check.windowSeconds, endsAtMs }, delta, nowMs).catch(() => undefined);
  }
}
