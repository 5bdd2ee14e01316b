import { createHash } from 'node:crypto';

/**
 * Which of a channel's keys a task was submitted with, without storing the key: an upstream task belongs
 * to the account of the key that created it, so it is polled and downloaded with that key.
 */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

/** The key with that fingerprint, or undefined when the channel no longer has it. */
export function findKeyByFingerprint(keys: readonly string[], fingerprint: string): string | undefined {
  let known = fingerprinted.get(keys);
  if (known === undefined) {
    known = new Map(keys.map((key) => [keyFingerprint(key), key]));
    fingerprinted.set(keys, known);
  }
  return known.get(fingerprint);
}

/**
 * A channel's keys by fingerprint, made once per keys list (a catalog reload brings new lists, and the old
 * ones' maps go with them): a continuation on a channel of many keys hashes none of them again.
 */
const fingerprinted = new WeakMap<readonly string[], Map<string, string>>();

/** The channel's key with that fingerprint; else its first key (the key was rotated away: try the account's next). */
export function keyByFingerprint(keys: readonly string[], fingerprint: string | null): string | undefined {
  if (fingerprint !== null) {
    for (const key of keys) if (keyFingerprint(key) === fingerprint) return key;
  }
  return keys[0];
}
