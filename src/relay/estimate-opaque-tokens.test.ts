import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { estimateOpaqueTokens, opaqueCharactersPerToken } from './estimate-opaque-tokens.js';

describe('estimateOpaqueTokens', () => {
  it('costs opaque base64 a token per 4 characters, rounded up, and nothing when absent', () => {
    expect(opaqueCharactersPerToken).toBe(4);
    expect(estimateOpaqueTokens(undefined)).toBe(0);
    expect(estimateOpaqueTokens('')).toBe(0);
    expect(estimateOpaqueTokens('EqQB')).toBe(1);
    expect(estimateOpaqueTokens('EqQBCkgIBhABGAIiQ')).toBe(5);
  });

  it('estimates a 90 KB signature at the tokens its plaintext could hold (3 bytes per 4 characters, under 4 bytes a token)', () => {
    const signature = randomBytes(90_000).toString('base64');
    expect(estimateOpaqueTokens(signature)).toBe(30_000);
    // At least a token per 4 plaintext bytes, however the ciphertext is framed.
    expect(estimateOpaqueTokens(signature)).toBeGreaterThanOrEqual(90_000 / 4);
  });
});
