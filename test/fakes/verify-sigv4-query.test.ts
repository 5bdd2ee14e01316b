import { describe, expect, it } from 'vitest';
import { verifySigV4Query } from './verify-sigv4-query.js';

// AWS's own example (docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html): a GET of
// examplebucket/test.txt signed at 2013-05-24T00:00:00Z for a day.
const secrets = new Map([['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']]);
const example =
  '/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';
const headers = { host: 'examplebucket.s3.amazonaws.com' };
const signedAt = Date.UTC(2013, 4, 24);

describe('verifySigV4Query (the fake object stores’ check)', () => {
  it('accepts AWS’s published example within its day', () => {
    expect(verifySigV4Query({ method: 'GET', url: example, headers }, secrets, signedAt + 3600_000)).toEqual({ ok: true, accessKeyId: 'AKIAIOSFODNN7EXAMPLE' });
  });

  it('refuses it after its day, for another method, host, key or secret', () => {
    expect(verifySigV4Query({ method: 'GET', url: example, headers }, secrets, signedAt + 86_401_000)).toEqual({ ok: false, reason: 'expired' });
    expect(verifySigV4Query({ method: 'PUT', url: example, headers }, secrets, signedAt).ok).toBe(false);
    expect(verifySigV4Query({ method: 'GET', url: example, headers: { host: 'other.s3.amazonaws.com' } }, secrets, signedAt).ok).toBe(false);
    expect(verifySigV4Query({ method: 'GET', url: example.replace('/test.txt', '/test2.txt'), headers }, secrets, signedAt).ok).toBe(false);
    expect(verifySigV4Query({ method: 'GET', url: example, headers }, new Map([['AKIAIOSFODNN7EXAMPLE', 'wrong']]), signedAt).ok).toBe(false);
  });
});
