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

describe('redactSecret of a key in |-joined parts', () => {
  it('masks each part of 8 characters or more wherever it is quoted alone', () => {
    const key = 'AKkling0000000000000000|SKkling1111111111111111';
    expect(redactSecret('AccessKey AKkling0000000000000000 is not authorized', key)).toBe('AccessKey *** is not authorized');
    expect(redactSecret(`signed with SKkling1111111111111111; key ${key}`, key)).toBe('signed with ***; key ***');
  });

  it('leaves short parts (a numeric SubAppId, a region) alone and trims the parts as the providers do', () => {
    const key = '1500012345| AKIDvod0000000000000000 |vodsecret000000000000|ap-guangzhou';
    expect(redactSecret('SubAppId 1500012345 of AKIDvod0000000000000000 in ap-guangzhou', key)).toBe('SubAppId 1500012345 of *** in ap-guangzhou');
    expect(redactSecret('SubAppId 150001 unknown', '150001|AKIDvod0000000000000000|vodsecret000000000000')).toBe('SubAppId 150001 unknown');
  });
});
