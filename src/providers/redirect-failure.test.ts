import { describe, expect, it } from 'vitest';
import { classifyUpstreamFailure, failureDetail } from '../routing/classify-upstream-failure.js';
import { isRedirectStatus, redirectFailure } from './redirect-failure.js';

describe('redirectFailure', () => {
  it('knows the 3xx statuses only', () => {
    expect([299, 300, 301, 302, 303, 304, 307, 308, 399, 400].map(isRedirectStatus)).toEqual([false, true, true, true, true, true, true, true, true, false]);
  });

  it('is a 502 naming the redirect, tried elsewhere and held against the channel like a 5xx', () => {
    const failure = redirectFailure(308, undefined);
    expect(failure).toEqual({ kind: 'status', status: 502, message: "The upstream answered a redirect (HTTP 308), which the gateway does not follow: the channel's base URL may be out of date." });
    expect(classifyUpstreamFailure(failure)).toEqual({ retry: true, setKeyAside: false, disableChannel: false, countsAsChannelFailure: true });
  });

  it('keeps the Location for the log only, without its query, fragment or credentials', () => {
    const failure = redirectFailure(301, 'https://proxy:hunter2@api.example.com/v1/chat/completions?key=AIza-secret#x');
    expect(failure.message).not.toContain('example.com');
    expect(failureDetail(failure)).toBe(`${failure.message} (location: https://***:***@api.example.com/v1/chat/completions)`);
  });
});
