/**
 * A Tencent Cloud API 3.0 TC3-HMAC-SHA256 check written from Tencent's documentation ("Signature v3",
 * protocols.md §5.4), independent of the signer the gateway uses, and held to Tencent's published example in
 * verify-tc3-signature.test.ts. The fake VOD upstream uses it to refuse what Tencent would refuse.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type Tc3ErrorCode = 'AuthFailure.SignatureFailure' | 'AuthFailure.SignatureExpire' | 'AuthFailure.SecretIdNotFound' | 'AuthFailure.InvalidAuthorization';

export type Tc3Check = { ok: true; secretId: string } | { ok: false; code: Tc3ErrorCode; message: string };

export interface Tc3RequestInput {
  method: 'POST';
  /** As received (node lower-cases the names; other casings are accepted too). */
  headers: Record<string, string | string[] | undefined>;
  /** The body bytes exactly as received. */
  body: Buffer;
  /** SecretId → SecretKey. */
  secrets: Record<string, string>;
  /** The service in the credential scope (`vod`). */
  service: string;
  nowSeconds: number;
}

/** How far X-TC-Timestamp may be from the server's clock ("within 5 minutes"). */
export const TC3_MAX_SKEW_SECONDS = 300;

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/**
 * Steps 2 and 3 of Tencent's algorithm: the string to sign over hex(SHA256(canonicalRequest)) and the key
 * derived from `"TC3" + SecretKey` → date → service → `tc3_request`. Returns the lower-case hex signature.
 */
export function tc3Signature(input: { secretKey: string; date: string; service: string; timestamp: number | string; canonicalRequest: string }): string {
  const stringToSign = ['TC3-HMAC-SHA256', String(input.timestamp), `${input.date}/${input.service}/tc3_request`, sha256Hex(input.canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(`TC3${input.secretKey}`, input.date), input.service), 'tc3_request');
  return hmac(signingKey, stringToSign).toString('hex');
}

/** The UTC `YYYY-MM-DD` of a Unix-second timestamp (the credential scope's date). */
export function tc3Date(timestampSeconds: number): string {
  return new Date(timestampSeconds * 1000).toISOString().slice(0, 10);
}

export function verifyTc3Request(input: Tc3RequestInput): Tc3Check {
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(input.headers)) {
    if (value === undefined) continue;
    headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(',') : value);
  }
  const invalid = (message: string): Tc3Check => ({ ok: false, code: 'AuthFailure.InvalidAuthorization', message });

  const authorization = headers.get('authorization');
  if (authorization === undefined || authorization.trim() === '') return invalid('The Authorization header is missing.');
  const parsed = /^TC3-HMAC-SHA256 +Credential=([^, ]+), *SignedHeaders=([^, ]+), *Signature=([^, ]+)$/.exec(authorization.trim());
  if (parsed === null) return invalid('Authorization header is not `TC3-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...`.');
  const [, credential = '', signedHeaderList = '', signature = ''] = parsed;
  const scope = credential.split('/');
  if (scope.length !== 4) return invalid('Credential must be `<SecretId>/<date>/<service>/tc3_request`.');
  const [secretId = '', date = '', service = '', terminator = ''] = scope;
  if (terminator !== 'tc3_request') return invalid('Credential scope must end with `tc3_request`.');
  if (service !== input.service) return invalid(`Credential scope service \`${service}\` is not \`${input.service}\`.`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return invalid(`Credential date \`${date}\` is not YYYY-MM-DD.`);

  const timestampText = headers.get('x-tc-timestamp')?.trim();
  if (timestampText === undefined || !/^\d+$/.test(timestampText)) return invalid('X-TC-Timestamp is missing or not Unix seconds.');
  const timestamp = Number(timestampText);
  if (Math.abs(input.nowSeconds - timestamp) > TC3_MAX_SKEW_SECONDS) {
    return { ok: false, code: 'AuthFailure.SignatureExpire', message: `Signature expired. Timestamp:${timestamp} is more than 5 minutes from server time:${input.nowSeconds}.` };
  }

  const secretKey = Object.prototype.hasOwnProperty.call(input.secrets, secretId) ? input.secrets[secretId] : undefined;
  if (secretKey === undefined) return { ok: false, code: 'AuthFailure.SecretIdNotFound', message: `The SecretId \`${secretId}\` is not found, please ensure that your SecretId is correct.` };

  if (date !== tc3Date(timestamp)) {
    return { ok: false, code: 'AuthFailure.SignatureFailure', message: `Credential date \`${date}\` is not the UTC date of X-TC-Timestamp ${timestamp} (${tc3Date(timestamp)}).` };
  }

  const signedHeaders = signedHeaderList.split(';');
  if (signedHeaders.some((name) => name === '' || name !== name.toLowerCase())) return invalid('SignedHeaders must be lower-case names separated by `;`.');
  for (let index = 1; index < signedHeaders.length; index += 1) {
    if ((signedHeaders[index - 1] as string) >= (signedHeaders[index] as string)) return invalid('SignedHeaders must be sorted and without repeats.');
  }
  if (!signedHeaders.includes('content-type') || !signedHeaders.includes('host')) return invalid('SignedHeaders must include content-type and host.');

  // Tencent: header names and values are lower-cased and trimmed (hence `x-tc-action:createaigcvideotask`
  // in the SDKs, while the header itself says `CreateAigcVideoTask`).
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${(headers.get(name) ?? '').trim().toLowerCase()}\n`).join('');
  const canonicalRequest = [input.method, '/', '', canonicalHeaders, signedHeaders.join(';'), sha256Hex(input.body)].join('\n');
  const expected = Buffer.from(tc3Signature({ secretKey, date, service, timestamp, canonicalRequest }), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { ok: false, code: 'AuthFailure.SignatureFailure', message: 'The provided credentials could not be validated. Please check your signature is correct.' };
  }
  return { ok: true, secretId };
}
