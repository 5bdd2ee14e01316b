import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const derived = await scrypt(password, salt, 32);
  return `scrypt:${salt.toString('base64')}:${derived.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (stored === null) return false;
  const [scheme, saltText, hashText] = stored.split(':');
  if (scheme !== 'scrypt' || saltText === undefined || hashText === undefined) return false;
  const expected = Buffer.from(hashText, 'base64');
  const derived = await scrypt(password, Buffer.from(saltText, 'base64'), expected.length);
  return timingSafeEqual(derived, expected);
}
