import { describe, expect, it } from 'vitest';
import { formatResetDuration, rateLimitHeaders } from './rate-limit-headers.js';
import type { RateState } from './rate-limiter.js';

const requests = (limit: number, remaining: number, resetSeconds: number): RateState => ({ kind: 'requests', limit, remaining, resetSeconds });
const tokens = (limit: number, remaining: number, resetSeconds: number): RateState => ({ kind: 'tokens', limit, remaining, resetSeconds });

describe('rateLimitHeaders', () => {
  it('sends the OpenAI headers for requests and tokens, without retry-after when allowed', () => {
    expect(rateLimitHeaders({ allowed: true, states: [requests(60, 59, 60), tokens(90_000, 89_000, 60)] })).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1m0s',
      'x-ratelimit-limit-tokens': '90000',
      'x-ratelimit-remaining-tokens': '89000',
      'x-ratelimit-reset-tokens': '1m0s',
    });
  });

  it('shows the tightest of several limits of one kind: least remaining, then latest reset', () => {
    const headers = rateLimitHeaders({ allowed: true, states: [requests(600, 10, 30), requests(60, 10, 45), requests(1000, 900, 5)] });
    expect(headers).toEqual({ 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '10', 'x-ratelimit-reset-requests': '45s' });
  });

  it('adds retry-after in seconds when refused', () => {
    const exceeded = tokens(1000, 0, 42);
    expect(rateLimitHeaders({ allowed: false, exceeded, retryAfterSeconds: 42, states: [requests(60, 3, 10), exceeded] })).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '3',
      'x-ratelimit-reset-requests': '10s',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '42s',
      'retry-after': '42',
    });
  });

  it('sends nothing for a call without checks', () => {
    expect(rateLimitHeaders({ allowed: true, states: [] })).toEqual({});
  });
});

describe('formatResetDuration', () => {
  it('writes whole seconds as a Go duration, as OpenAI does', () => {
    expect([0, 1, 59, 60, 360, 3599, 3600, 3725].map(formatResetDuration)).toEqual(['0s', '1s', '59s', '1m0s', '6m0s', '59m59s', '1h0m0s', '1h2m5s']);
  });
});
