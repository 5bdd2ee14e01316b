import { hashApiKey } from '../security/api-keys.js';
import { parseApiKey } from './parse-api-key.js';

/** What authentication needs of a presented key: the hash it is stored under and the pinned channel. */
export interface KeyDigest {
  hash: string;
  channelId: number | undefined;
}

/** Presented keys remembered; past this the memo starts over (random keys cannot make it grow). */
export const maxRememberedKeys = 4096;

const digests = new Map<string, KeyDigest | null>();

/** No key is longer: `sk-` + 48 characters + `-` + a channel id, with room to spare. */
export const longestPresentableKey = 128;

/**
 * parseApiKey + SHA-256 of a presented key, remembered per key: the same few keys come with every request,
 * and the parse and the hash were ~4 µs of each one. null: the value cannot be a key at all. A function of
 * its argument alone, so the memo never answers differently from computing it again; it holds presented
 * keys (valid or not) in memory, as each request does while it runs.
 */
export function digestPresentedKey(presented: string): KeyDigest | null {
  // Longer than any key (`sk-` + 48 + a channel pin): never a key, and never kept — a flood of 15 KB values
  // would otherwise hold tens of megabytes in the memo.
  if (presented.length > longestPresentableKey) return null;
  const remembered = digests.get(presented);
  if (remembered !== undefined) return remembered;
  const parsed = parseApiKey(presented);
  const digest = parsed === undefined ? null : { hash: hashApiKey(parsed.key), channelId: parsed.channelId };
  if (digests.size >= maxRememberedKeys) digests.clear();
  digests.set(presented, digest);
  return digest;
}

/** How many keys the memo holds (tests). */
export function rememberedKeyCount(): number {
  return digests.size;
}
