import { describe, expect, it } from 'vitest';
import { refusesChannelCredentials } from './refuses-channel-credentials.js';

describe('refusesChannelCredentials', () => {
  it('is a 401, a 403, or a key refused whatever the status', () => {
    expect(refusesChannelCredentials({ kind: 'status', status: 401, message: 'x' })).toBe(true);
    expect(refusesChannelCredentials({ kind: 'status', status: 403, message: 'x' })).toBe(true);
    expect(refusesChannelCredentials({ kind: 'status', status: 400, message: 'API key not valid', reason: 'key_rejected' })).toBe(true);
  });

  it('is not the request\'s refusal, a dead account, a rate limit, a server fault or no answer', () => {
    expect(refusesChannelCredentials({ kind: 'status', status: 400, message: 'x' })).toBe(false);
    expect(refusesChannelCredentials({ kind: 'status', status: 429, message: 'x', reason: 'account_dead' })).toBe(false);
    expect(refusesChannelCredentials({ kind: 'status', status: 500, message: 'x' })).toBe(false);
    expect(refusesChannelCredentials({ kind: 'connection', message: 'x' })).toBe(false);
    expect(refusesChannelCredentials({ kind: 'timeout', phase: 'first_byte', message: 'x' })).toBe(false);
  });
});
