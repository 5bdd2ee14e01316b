import { describe, expect, it } from 'vitest';
import { findKeyByFingerprint, keyByFingerprint, keyFingerprint } from './key-fingerprint.js';

describe('findKeyByFingerprint', () => {
  it('finds the key with that fingerprint, and none when the channel no longer has it', () => {
    const keys = ['sk-a', 'sk-b'];
    expect(findKeyByFingerprint(keys, keyFingerprint('sk-b'))).toBe('sk-b');
    expect(findKeyByFingerprint(keys, keyFingerprint('sk-c'))).toBeUndefined();
    // A new keys list (a catalog reload after an edit) is read afresh.
    expect(findKeyByFingerprint(['sk-c'], keyFingerprint('sk-c'))).toBe('sk-c');
  });

  it('keyByFingerprint still falls back to the first key (tasks: try the account the channel has now)', () => {
    expect(keyByFingerprint(['sk-a', 'sk-b'], keyFingerprint('sk-c'))).toBe('sk-a');
  });
});
