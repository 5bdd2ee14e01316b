/**
 * An S3 SigV4 presigned-URL check written from AWS's documentation ("Authenticating Requests: Using Query
 * Parameters"), independent of the signer the gateway uses, and held to AWS's published example in
 * verify-sigv4-query.test.ts. Fake object stores use it to refuse what real S3 would refuse.
 */
import { createHash, createHmac } from 'node:crypto';

export interface PresignedRequest {
  method: string;
  /** Path and query as received (`/bucket/key?X-Amz-...`). */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>;
}

export type SignatureCheck = { ok: true; accessKeyId: string } | { ok: false; reason: string };

const encode = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');

export function verifySigV4Query(request: PresignedRequest, secrets: ReadonlyMap<string, string>, nowMs: number): SignatureCheck {
  const url = new URL(request.url, 'http://placeholder');
  const query = url.searchParams;
  const required = ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature'];
  for (const name of required) if (!query.has(name)) return { ok: false, reason: `missing ${name}` };
  if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return { ok: false, reason: 'algorithm' };
  const [accessKeyId = '', day = '', region = '', service = '', terminator = ''] = (query.get('X-Amz-Credential') as string).split('/');
  const secret = secrets.get(accessKeyId);
  if (secret === undefined) return { ok: false, reason: 'unknown access key' };
  if (service !== 's3' || terminator !== 'aws4_request') return { ok: false, reason: 'credential scope' };
  const amzDate = query.get('X-Amz-Date') as string;
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (match === null || !amzDate.startsWith(day)) return { ok: false, reason: 'date' };
  const signedAt = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5]), Number(match[6]));
  const expires = Number(query.get('X-Amz-Expires'));
  if (!Number.isInteger(expires) || expires < 1 || expires > 604_800) return { ok: false, reason: 'expires' };
  if (nowMs > signedAt + expires * 1000) return { ok: false, reason: 'expired' };

  const signedHeaders = (query.get('X-Amz-SignedHeaders') as string).split(';');
  if (!signedHeaders.includes('host')) return { ok: false, reason: 'host not signed' };
  const canonicalHeaders = signedHeaders.map((name) => {
    const value = request.headers[name];
    return `${name}:${(Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ')}\n`;
  });
  const canonicalQuery = [...query.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalPath = url.pathname.split('/').map((segment) => encode(decodeURIComponent(segment))).join('/');
  const canonicalRequest = [request.method, canonicalPath, canonicalQuery, canonicalHeaders.join(''), signedHeaders.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), 's3'), 'aws4_request');
  const expected = hmac(signingKey, stringToSign).toString('hex');
  return expected === query.get('X-Amz-Signature') ? { ok: true, accessKeyId } : { ok: false, reason: 'signature does not match' };
}
