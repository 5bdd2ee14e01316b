import { describe, expect, it } from 'vitest';
import { findExhaustedBalance } from './find-exhausted-balance.js';

describe('findExhaustedBalance', () => {
  const funded = { remainQuota: 5, quota: 5, unlimitedQuota: false };
  const empty = { remainQuota: 0, quota: 0, unlimitedQuota: false };
  const unlimited = { remainQuota: 0, quota: 0, unlimitedQuota: true };

  it('names the token first, then the user, when a limited balance is at zero or below', () => {
    expect(findExhaustedBalance(empty, empty)).toBe('token');
    expect(findExhaustedBalance(funded, empty)).toBe('user');
    expect(findExhaustedBalance(unlimited, { ...empty, quota: -1 })).toBe('user');
  });

  it('answers undefined when both sides have something left or are unlimited', () => {
    expect(findExhaustedBalance(funded, funded)).toBeUndefined();
    expect(findExhaustedBalance(unlimited, unlimited)).toBeUndefined();
    expect(findExhaustedBalance({ ...funded, remainQuota: 1 }, unlimited)).toBeUndefined();
  });
});
