import { describe, expect, it } from 'vitest';
import { hashApiKey } from './api-keys.js';

describe('hashApiKey', () => {
  it('is the hex SHA-256 of the key’s UTF-8 bytes, so hashes stored by earlier versions still match', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiKey('sk-ünïcode')).toBe('67d4b9d4bef04ab4e9cff7fb44231d03b18ff719834584bbba50b4e547b69566');
  });
});
