import { createHmac } from 'node:crypto';

/** A Kling channel's key, `AccessKey|SecretKey` (protocols.md §3.3). */
export interface KlingCredentials {
  accessKey: string;
  secretKey: string;
}

/** Pure: the two parts of a Kling key; undefined when it is not of that shape. */
export function parseKlingKey(key: string): KlingCredentials | undefined {
  const parts = key.split('|').map((part) => part.trim());
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { accessKey: parts[0] as string, secretKey: parts[1] as string };
}

/**
 * Pure: the bearer token Kling takes (protocols.md §3.3): a JWT, HS256 over the SecretKey, issued by the
 * AccessKey, valid from 5 s before `nowMs` for 30 minutes. A fresh one per request.
 */
export function klingToken(credentials: KlingCredentials, nowMs: number): string {
  const now = Math.floor(nowMs / 1000);
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64url(JSON.stringify({ iss: credentials.accessKey, exp: now + 1800, nbf: now - 5 }));
  const signature = createHmac('sha256', credentials.secretKey).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
