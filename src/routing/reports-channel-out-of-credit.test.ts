import { describe, expect, it } from 'vitest';
import { reportsChannelOutOfCredit } from './reports-channel-out-of-credit.js';

describe('reportsChannelOutOfCredit', () => {
  it('is a dead account whatever the status, or a 402', () => {
    expect(reportsChannelOutOfCredit({ kind: 'status', status: 429, message: 'x', reason: 'account_dead' })).toBe(true);
    expect(reportsChannelOutOfCredit({ kind: 'status', status: 400, message: 'x', reason: 'account_dead' })).toBe(true);
    expect(reportsChannelOutOfCredit({ kind: 'status', status: 402, message: 'x' })).toBe(true);
  });

  it('is not a plain rate limit, a refused key, a server fault or no answer', () => {
    expect(reportsChannelOutOfCredit({ kind: 'status', status: 429, message: 'x' })).toBe(false);
    expect(reportsChannelOutOfCredit({ kind: 'status', status: 401, message: 'x', reason: 'key_rejected' })).toBe(false);
    expect(reportsChannelOutOfCredit({ kind: 'status', status: 500, message: 'x' })).toBe(false);
    expect(reportsChannelOutOfCredit({ kind: 'connection', message: 'x' })).toBe(false);
  });
});
