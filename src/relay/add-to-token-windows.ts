import type { RateLimiter } from '../limits/rate-limiter.js';
import type { CountedRateCheck } from './correct-token-windows.js';

/**
 * Counts `tokens` more in every tokens window a request was admitted with — in the key's window live now,
 * whichever that is (a long Realtime session's response counts in the minute it ended, not the one the
 * session opened in). Not awaited, like `correctTokenWindows`: a failure only leaves the tokens uncounted.
 */
export function addToTokenWindows(limiter: RateLimiter, counted: readonly CountedRateCheck[], tokens: number, nowMs: number): void {
  if (tokens <= 0) return;
  for (const { check } of counted) {
    if (check.kind !== 'tokens') continue;
    void limiter.adjust({ key: check.key, windowSeconds: check.windowSeconds }, tokens, nowMs).catch(() => undefined);
  }
}
