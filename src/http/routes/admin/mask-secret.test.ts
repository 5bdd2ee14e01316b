import { describe, expect, it } from 'vitest';
import { maskSecret } from './mask-secret.js';

describe('maskSecret', () => {
  it('shows nothing of a key under 12 characters', () => {
    expect(maskSecret('')).toBe('…');
    expect(maskSecret('short-key01')).toBe('…');
  });

  it('shows at most a quarter of a shorter key', () => {
    for (let length = 12; length < 40; length += 1) {
      const key = 'k'.repeat(length);
      expect(maskSecret(key).replace('…', '').length, `length ${length}`).toBeLessThanOrEqual(Math.floor(length / 4));
    }
    expect(maskSecret('abcdefghijkl')).toBe('ab…l');
    expect(maskSecret('sk-0123456789ABCD')).toBe('sk…CD');
    expect(maskSecret('sk-0123456789ABCDEFG')).toBe('sk-…FG');
  });

  it('shows the first and last four characters from 32 characters on', () => {
    expect(maskSecret('sk-a0123456789012345678901234xyz1')).toBe('sk-a…xyz1');
    expect(maskSecret(`sk-u${'x'.repeat(60)}6789`)).toBe('sk-u…6789');
    expect(maskSecret('sk-0123456789012345678901234567')).toBe('sk-0…567');
  });
});
