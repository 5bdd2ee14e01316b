import type { RateDecision, RateState } from './rate-limiter.js';

/**
 * Pure: a decision → the headers OpenAI sends (`x-ratelimit-{limit,remaining,reset}-{requests,tokens}`,
 * reset as a Go duration such as `1s` or `6m0s`), plus `retry-after` in seconds when refused. When
 * several limits of one kind apply (token, user and IP rpm), the tightest is shown: least remaining,
 * then latest reset. Kinds without a check get no headers.
 */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  // One pass over the states and literal header names: this runs on every admitted request.
  let requests: RateState | undefined;
  let tokens: RateState | undefined;
  for (const state of decision.states) {
    if (state.kind === 'requests') {
      if (requests === undefined || isTighter(state, requests)) requests = state;
    } else if (tokens === undefined || isTighter(state, tokens)) {
      tokens = state;
    }
  }
  const headers: Record<string, string> = {};
  if (requests !== undefined) {
    headers['x-ratelimit-limit-requests'] = `${requests.limit}`;
    headers['x-ratelimit-remaining-requests'] = `${requests.remaining}`;
    headers['x-ratelimit-reset-requests'] = formatResetDuration(requests.resetSeconds);
  }
  if (tokens !== undefined) {
    headers['x-ratelimit-limit-tokens'] = `${tokens.limit}`;
    headers['x-ratelimit-remaining-tokens'] = `${tokens.remaining}`;
    headers['x-ratelimit-reset-tokens'] = formatResetDuration(tokens.resetSeconds);
  }
  if (!decision.allowed) headers['retry-after'] = `${decision.retryAfterSeconds}`;
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

/** Least remaining wins; at equal remaining, the later reset. */
function isTighter(state: RateState, than: RateState): boolean {
  return state.remaining < than.remaining || (state.remaining === than.remaining && state.resetSeconds > than.resetSeconds);
}
