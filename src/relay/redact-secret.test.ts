import { describe, expect, it } from 'vitest';
import { redactSecret } from './redact-secret.js';

describe('redactSecret', () => {
  it('replaces every occurrence of the key', () => {
    const key = 'sk-upstream-0123456789';
    expect(redactSecret(`{"error":{"message":"Incorrect API key provided: ${key}. Key ${key} is revoked."}}`, key)).toBe('{"error":{"message":"Incorrect API key provided: ***. Key *** is revoked."}}');
  });

  it('leaves text without the key, and keys too short to be credentials, alone', () => {
    expect(redactSecret('rate limited', 'sk-upstream-0123456789')).toBe('rate limited');
    expect(redactSecret('the key abc is wrong', 'abc')).toBe('the key abc is wrong');
  });
});
