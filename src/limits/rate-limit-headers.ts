import type { RateDecision, RateState } from './rate-limiter.js';

/**
 * Pure: a decision → the headers OpenAI sends (`x-ratelimit-{limit,remaining,reset}-{requests,tokens}`,
 * reset as a Go duration such as `1s` or `6m0s`), plus `retry-after` in seconds when refused. When
 * several limits of one kind apply (token, user and IP rpm), the tightest is shown: least remaining,
 * then latest reset. Kinds without a check get no headers.
 */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const kind of ['requests', 'tokens'] as const) {
    const state = tightestOf(decision.states.filter((candidate) => candidate.kind === kind));
    if (state === undefined) continue;
    headers[`x-ratelimit-limit-${kind}`] = String(state.limit);
    headers[`x-ratelimit-remaining-${kind}`] = String(state.remaining);
    headers[`x-ratelimit-reset-${kind}`] = formatResetDuration(state.resetSeconds);
  }
  if (!decision.allowed) headers['retry-after'] = String(decision.retryAfterSeconds);
  return headers;
}

/** Whole seconds as a Go duration string, the form of OpenAI's reset headers: `0s`, `45s`, `6m0s`, `1h0m5s`. */
export function formatResetDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.ceil(totalSeconds));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours > 0) return `${hours}h${minutes}m${rest}s`;
  if (minutes > 0) return `${minutes}m${rest}s`;
  return `${rest}s`;
}

function tightestOf(states: readonly RateState[]): RateState | undefined {
  let tightest: RateState | undefined;
  for (const state of states) {
    if (
      tightest === undefined ||
      state.remaining < tightest.remaining ||
      (state.remaining === tightest.remaining && state.resetSeconds > tightest.resetSeconds)
    ) {
      tightest = state;
    }
  }
  return tightest;
}
