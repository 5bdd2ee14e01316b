import { createHash } from 'node:crypto';

/**
 * Which of a channel's keys a task was submitted with, without storing the key: an upstream task belongs
 * to the account of the key that created it, so it is polled and downloaded with that key.
 */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

/** The channel's key with that fingerprint; else its first key (the key was rotated away: try the account's next). */
export function keyByFingerprint(keys: readonly string[], fingerprint: string | null): string | undefined {
  if (fingerprint !== null) {
    for (const key of keys) if (keyFingerprint(key) === fingerprint) return key;
  }
  return keys[0];
}
