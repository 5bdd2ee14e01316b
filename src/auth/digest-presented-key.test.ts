import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../security/api-keys.js';
import { digestPresentedKey, longestPresentableKey, maxRememberedKeys, rememberedKeyCount } from './digest-presented-key.js';

const key48 = `sk-${'aB3'.repeat(16)}`;

describe('digestPresentedKey', () => {
  it('gives the stored hash and the pin of a key, the same on every call', () => {
    const first = digestPresentedKey(`${key48}-42`);
    expect(first).toEqual({ hash: hashApiKey(key48), channelId: 42 });
    expect(digestPresentedKey(`${key48}-42`)).toEqual(first);
    expect(digestPresentedKey('aB3'.repeat(16))).toEqual({ hash: hashApiKey(key48), channelId: undefined });
  });

  it('says null for a value that cannot be a key, every time', () => {
    expect(digestPresentedKey('sk-abc def')).toBeNull();
    expect(digestPresentedKey('sk-abc def')).toBeNull();
  });

  it('stays bounded however many different keys are presented', () => {
    for (let index = 0; index < maxRememberedKeys * 2 + 10; index += 1) {
      const key = `sk-random${index}`;
      expect(digestPresentedKey(key)).toEqual({ hash: hashApiKey(key), channelId: undefined });
      expect(rememberedKeyCount()).toBeLessThanOrEqual(maxRememberedKeys);
    }
    // Still right for a key remembered before the memo started over.
    expect(digestPresentedKey(`${key48}-42`)).toEqual({ hash: hashApiKey(key48), channelId: 42 });
  });

  it('keeps nothing of a value longer than any key (a flood of 15 KB Bearer values holds no memory)', () => {
    const before = rememberedKeyCount();
    for (let index = 0; index < 100; index += 1) expect(digestPresentedKey(`sk-${String(index).padStart(15_000, 'x')}`)).toBeNull();
    expect(rememberedKeyCount()).toBe(before);
    expect(digestPresentedKey(`${key48}-${'9'.repeat(longestPresentableKey - key48.length - 1)}`)).not.toBeNull();
  });
});
