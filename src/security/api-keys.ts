import { hash, randomInt } from 'node:crypto';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `sk-` + 48 letters/digits, the key shape clients of new-api already know. */
export function generateApiKey(): string {
  let key = 'sk-';
  for (let index = 0; index < 48; index += 1) key += alphabet[randomInt(alphabet.length)];
  return key;
}

/**
 * API keys are random and long, so one SHA-256 is enough: no salt or slow hash is needed. One-shot
 * `crypto.hash` (Node ≥ 20.12): it runs on every request, and a createHash object costs several times more.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** What an operator sees of a stored key: enough to recognise it, not enough to use it. */
export function visiblePrefixOf(key: string): string {
  return `${key.slice(0, 7)}…${key.slice(-4)}`;
}
