import { createHash, createHmac } from 'node:crypto';

/** What one Tencent Cloud API 3.0 call signs (protocols.md §5.4). */
export interface Tc3Request {
  secretId: string;
  secretKey: string;
  /** The product, as in its host name: `vod`. */
  service: string;
  /** The `Host` header exactly as sent (with a port when there is one). */
  host: string;
  action: string;
  /** The `Content-Type` header exactly as sent. */
  contentType: string;
  /** The JSON body exactly as sent. */
  body: string;
  /** Unix seconds. */
  timestamp: number;
}

const algorithm = 'TC3-HMAC-SHA256';
const signedHeaders = 'content-type;host;x-tc-action';

/**
 * Pure: the `Authorization` header of a POST to Tencent Cloud API 3.0 (TC3-HMAC-SHA256): the canonical
 * request (method, `/`, empty query, the three signed headers, the body's SHA-256), the string to sign
 * over the UTC date's credential scope, and the key derived from the secret through the date, the service
 * and `tc3_request`. Held to Tencent's published example in sign-tc3.test.ts.
 */
export function tc3Authorization(request: Tc3Request): string {
  const date = new Date(request.timestamp * 1000).toISOString().slice(0, 10);
  const canonicalHeaders = `content-type:${request.contentType}\nhost:${request.host}\nx-tc-action:${request.action.toLowerCase()}\n`;
  const canonicalRequest = ['POST', '/', '', canonicalHeaders, signedHeaders, sha256Hex(request.body)].join('\n');
  const scope = `${date}/${request.service}/tc3_request`;
  const stringToSign = [algorithm, String(request.timestamp), scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = tc3Signature(request.secretKey, date, request.service, stringToSign);
  return `${algorithm} Credential=${request.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

/** The signature of a string to sign: HMAC chain `TC3`+secret → date → service → `tc3_request`, then hex. */
export function tc3Signature(secretKey: string, date: string, service: string, stringToSign: string): string {
  const kDate = hmac(`TC3${secretKey}`, date);
  const kService = hmac(kDate, service);
  const kSigning = hmac(kService, 'tc3_request');
  return createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function hmac(key: string | Buffer, message: string): Buffer {
  return createHmac('sha256', key).update(message, 'utf8').digest();
}
