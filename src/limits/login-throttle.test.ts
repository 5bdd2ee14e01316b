import { describe, expect, it } from 'vitest';
import { LoginThrottle } from './login-throttle.js';

describe('LoginThrottle', () => {
  it('refuses a key after its allowed failures until the window (from the first failure) ends', async () => {
    const throttle = new LoginThrottle({ maxFailures: 3, windowSeconds: 60 });
    const start = 1_000_000;
    for (let failure = 0; failure < 3; failure += 1) expect(await throttle.admit('ip\nalice', start + failure)).toEqual({ allowed: true });
    expect(await throttle.admit('ip\nalice', start + 10_000)).toEqual({ allowed: false, retryAfterSeconds: 50 });
    expect(await throttle.admit('ip\nbob', start + 10_000)).toEqual({ allowed: true });
    expect(await throttle.admit('ip\nalice', start + 60_000)).toEqual({ allowed: true });
  });

  it('holds at most maxKeys keys', async () => {
    const throttle = new LoginThrottle({ maxFailures: 1, windowSeconds: 60, maxKeys: 2 });
    for (const key of ['a', 'b', 'c']) await throttle.admit(key, 0);
    // The oldest key was forgotten to admit the third.
    expect((await throttle.admit('a', 1)).allowed).toBe(true);
    expect((await throttle.admit('c', 1)).allowed).toBe(false);
  });

  it('counts an attempt when admitted, so a burst of guesses cannot pass before the first fails; a success gives its slot back', async () => {
    const throttle = new LoginThrottle({ maxFailures: 3, windowSeconds: 60 });
    const burst = await Promise.all(Array.from({ length: 6 }, () => throttle.admit('ip\nmallory', 0)));
    expect(burst.filter((admission) => admission.allowed)).toHaveLength(3);
    const other = new LoginThrottle({ maxFailures: 2, windowSeconds: 60 });
    for (let login = 0; login < 5; login += 1) {
      expect((await other.admit('ip\nalice', login)).allowed).toBe(true);
      await other.succeeded('ip\nalice', login);
    }
  });
});
