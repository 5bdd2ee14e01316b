import { describe, expect, it } from 'vitest';
import { readUpstreamErrorReason } from './read-upstream-error-reason.js';

function openaiError(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

describe('readUpstreamErrorReason', () => {
  it('reads OpenAI’s error codes, whatever the status', () => {
    expect(readUpstreamErrorReason(401, openaiError('Incorrect API key provided: sk-a***', 'invalid_request_error', 'invalid_api_key'), 'Incorrect API key provided: sk-a***')).toBe('key_rejected');
    expect(readUpstreamErrorReason(429, openaiError('You exceeded your current quota.', 'insufficient_quota', 'insufficient_quota'), 'You exceeded your current quota.')).toBe('account_dead');
    expect(readUpstreamErrorReason(400, openaiError('x', 'invalid_request_error', 'insufficient_quota'), 'x')).toBe('account_dead');
  });

  it('reads Google’s ErrorInfo reason: a bad key is a 400 INVALID_ARGUMENT', () => {
    const message = 'API key not valid. Please pass a valid API key.';
    const body = { error: { code: 400, message, status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }] } };
    expect(readUpstreamErrorReason(400, body, message)).toBe('key_rejected');
  });

  it('reads Google’s 429 RESOURCE_EXHAUSTED as the rate limit it is, though its message says "You exceeded your current quota"', () => {
    const message = 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.';
    const details = [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier', quotaValue: '10' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '33s' },
    ];
    expect(readUpstreamErrorReason(429, { error: { code: 429, message, status: 'RESOURCE_EXHAUSTED', details } }, message)).toBeUndefined();
    expect(readUpstreamErrorReason(429, { error: { code: 429, message, status: 'RESOURCE_EXHAUSTED' } }, message)).toBeUndefined();
    // The same words without Google's status are still OpenAI's (or a relay's) account out of credit.
    expect(readUpstreamErrorReason(429, undefined, message)).toBe('account_dead');
  });

  it('reads Anthropic’s out-of-credit 400 only as an invalid_request_error whose message starts so', () => {
    const message = 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.';
    expect(readUpstreamErrorReason(400, { type: 'error', error: { type: 'invalid_request_error', message } }, message)).toBe('account_dead');
    const quoted = `messages.0.content: '${message}' is not valid`;
    expect(readUpstreamErrorReason(400, { type: 'error', error: { type: 'invalid_request_error', message: quoted } }, quoted)).toBeUndefined();
    expect(readUpstreamErrorReason(402, { type: 'error', error: { type: 'billing_error', message: 'x' } }, 'x')).toBe('account_dead');
  });

  it.each(['incorrect api key', 'Incorrect API key provided', 'you exceeded your current quota', 'API key not valid', 'this organization has been disabled'])(
    'never reads a 400 that quotes the request (%s) as the key’s or the account’s fault',
    (phrase) => {
      const message = `Invalid value: '${phrase}'. Supported values are: 'low', 'medium', and 'high'.`;
      expect(readUpstreamErrorReason(400, openaiError(message, 'invalid_request_error', 'invalid_value'), message)).toBeUndefined();
      expect(readUpstreamErrorReason(400, undefined, phrase)).toBeUndefined();
    },
  );

  it('reads a message only by how it starts, and only on 401, 402, 403 and 429', () => {
    expect(readUpstreamErrorReason(403, { message: 'This organization has been disabled.' }, 'This organization has been disabled.')).toBe('account_dead');
    expect(readUpstreamErrorReason(429, undefined, 'You exceeded your current quota, please check your plan')).toBe('account_dead');
    expect(readUpstreamErrorReason(403, undefined, 'The security token included in the request is invalid.')).toBe('account_dead');
    expect(readUpstreamErrorReason(403, undefined, 'Invalid API key')).toBe('key_rejected');
    expect(readUpstreamErrorReason(429, undefined, "Rate limit for 'you exceeded your current quota'")).toBeUndefined();
    expect(readUpstreamErrorReason(500, undefined, 'You exceeded your current quota')).toBeUndefined();
    expect(readUpstreamErrorReason(429, undefined, 'Rate limit reached for requests')).toBeUndefined();
  });
});
