import type { UpstreamFailure } from './classify-upstream-failure.js';

/**
 * Pure: whether an upstream said the channel's account cannot pay — out of credit or disabled (OpenAI's
 * `insufficient_quota` 429, Anthropic's `billing_error` or "Your credit balance is too low" 400:
 * readUpstreamErrorReason's `account_dead`; not Google's 429 RESOURCE_EXHAUSTED, a rate limit), or answered a 402 Payment
 * Required. The client's own balance was admitted before the call: told in its style's quota words with the
 * upstream's status, its SDK would read it as its own balance run out (relay-envelope.ts answers a 502).
 */
export function reportsChannelOutOfCredit(failure: UpstreamFailure): boolean {
  return failure.kind === 'status' && (failure.reason === 'account_dead' || failure.status === 402);
}
