import { describe, expect, it } from 'vitest';
import { saysChannelOutOfCredit } from './says-channel-out-of-credit.js';

describe('saysChannelOutOfCredit', () => {
  it('reads an account out of credit from the vendors\' answers', () => {
    expect(saysChannelOutOfCredit(400, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API.' } }))).toBe(true);
    expect(saysChannelOutOfCredit(429, JSON.stringify({ error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } }))).toBe(true);
    expect(saysChannelOutOfCredit(402, 'Payment Required')).toBe(true);
  });

  it('is not a plain rate limit, a bad request or a success', () => {
    expect(saysChannelOutOfCredit(429, JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } }))).toBe(false);
    expect(saysChannelOutOfCredit(400, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: field required' } }))).toBe(false);
    expect(saysChannelOutOfCredit(200, '{"input_tokens":3}')).toBe(false);
  });
});
