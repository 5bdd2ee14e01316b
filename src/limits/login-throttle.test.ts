import { describe, expect, it } from 'vitest';
import { LoginThrottle } from './login-throttle.js';

describe('LoginThrottle', () => {
  it('refuses a key after its allowed failures until the window (from the first failure) ends', async () => {
    const throttle = new LoginThrottle({ maxFailures: 3, windowSeconds: 60 });
    const start = 1_000_000;
    for (let failure = 0; failure < 3; failure += 1) {
      expect(await throttle.admit('ip\nalice', start + failure)).toEqual({ allowed: true });
      await throttle.recordFailure('ip\nalice', start + failure);
    }
    expect(await throttle.admit('ip\nalice', start + 10_000)).toEqual({ allowed: false, retryAfterSeconds: 50 });
    expect(await throttle.admit('ip\nbob', start + 10_000)).toEqual({ allowed: true });
    expect(await throttle.admit('ip\nalice', start + 60_000)).toEqual({ allowed: true });
  });

  it('holds at most maxKeys keys', async () => {
    const throttle = new LoginThrottle({ maxFailures: 1, windowSeconds: 60, maxKeys: 2 });
    for (const key of ['a', 'b', 'c']) await throttle.recordFailure(key, 0);
    // The oldest key was forgotten to admit the third.
    expect((await throttle.admit('a', 1)).allowed).toBe(true);
    expect((await throttle.admit('c', 1)).allowed).toBe(false);
  });
});
