import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { klingToken, parseKlingKey } from './kling-credentials.js';

describe('Kling keys and tokens', () => {
  it('reads AccessKey|SecretKey and nothing else', () => {
    expect(parseKlingKey(' ak | sk ')).toEqual({ accessKey: 'ak', secretKey: 'sk' });
    expect(parseKlingKey('ak')).toBeUndefined();
    expect(parseKlingKey('ak|')).toBeUndefined();
    expect(parseKlingKey('a|b|c')).toBeUndefined();
  });

  it('issues an HS256 JWT from the AccessKey, valid from 5 s ago for 30 minutes', () => {
    const token = klingToken({ accessKey: 'AK123', secretKey: 'SK456' }, 1_764_000_000_500);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toEqual({ iss: 'AK123', exp: 1_764_001_800, nbf: 1_763_999_995 });
    expect(signature).toBe(createHmac('sha256', 'SK456').update(`${header}.${payload}`).digest('base64url'));
    expect(token).not.toMatch(/[=+/]/);
  });
});
