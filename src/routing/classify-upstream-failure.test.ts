import { describe, expect, it } from 'vitest';
import { classifyUpstreamFailure } from './classify-upstream-failure.js';

describe('classifyUpstreamFailure', () => {
  it('retries connection errors and timeouts on another channel', () => {
    expect(classifyUpstreamFailure({ kind: 'connection', message: 'reset' }).retry).toBe(true);
    expect(classifyUpstreamFailure({ kind: 'timeout', phase: 'first_byte', message: 'slow' }).retry).toBe(true);
  });

  it.each([429, 500, 502, 503, 504, 408])('retries HTTP %i', (status) => {
    expect(classifyUpstreamFailure({ kind: 'status', status, message: 'x' }).retry).toBe(true);
  });

  it.each([400, 404, 409, 413, 422])('sends HTTP %i straight back to the client', (status) => {
    const verdict = classifyUpstreamFailure({ kind: 'status', status, message: 'bad request' });
    expect(verdict.retry).toBe(false);
    expect(verdict.countsAsChannelFailure).toBe(false);
  });

  it('sets a rejected key aside and may disable the channel', () => {
    expect(classifyUpstreamFailure({ kind: 'status', status: 401, message: 'Incorrect API key provided' })).toMatchObject({ retry: true, setKeyAside: true, disableChannel: true });
  });

  it('treats a key refused with another status as a rejected key (Google: 400 API_KEY_INVALID)', () => {
    expect(classifyUpstreamFailure({ kind: 'status', status: 400, message: 'API key not valid. Please pass a valid API key.', reason: 'key_rejected' })).toEqual({ retry: true, setKeyAside: true, disableChannel: true, countsAsChannelFailure: true });
  });

  it('fails over and disables a channel whose account is out of credit, even on 400 (Anthropic)', () => {
    expect(classifyUpstreamFailure({ kind: 'status', status: 400, message: 'Your credit balance is too low to access the Anthropic API.', reason: 'account_dead' })).toEqual({ retry: true, setKeyAside: true, disableChannel: true, countsAsChannelFailure: true });
  });

  it('disables a channel whose account is out of credit, even on 429', () => {
    expect(classifyUpstreamFailure({ kind: 'status', status: 429, message: 'You exceeded your current quota, please check your plan', reason: 'account_dead' }).disableChannel).toBe(true);
    expect(classifyUpstreamFailure({ kind: 'status', status: 429, message: 'Rate limit reached for requests' }).disableChannel).toBe(false);
  });

  it('never reads the message: a 400 that quotes key or account phrases is still the request’s fault', () => {
    for (const message of ["Invalid value: 'incorrect api key'.", "Invalid value: 'you exceeded your current quota'.", 'API key not valid. Please pass a valid API key.']) {
      expect(classifyUpstreamFailure({ kind: 'status', status: 400, message })).toEqual({ retry: false, setKeyAside: false, disableChannel: false, countsAsChannelFailure: false });
    }
  });

  it('tries a 2xx error document elsewhere without holding it against the channel, unless its fields name the account', () => {
    expect(classifyUpstreamFailure({ kind: 'status', status: 502, message: 'the upstream answered 2xx with an error document', mayBeTheRequests: true })).toEqual({ retry: true, setKeyAside: false, disableChannel: false, countsAsChannelFailure: false });
    expect(classifyUpstreamFailure({ kind: 'status', status: 502, message: 'x', reason: 'account_dead' })).toEqual({ retry: true, setKeyAside: true, disableChannel: true, countsAsChannelFailure: true });
    expect(classifyUpstreamFailure({ kind: 'status', status: 502, message: 'x' })).toEqual({ retry: true, setKeyAside: false, disableChannel: false, countsAsChannelFailure: true });
  });
});
