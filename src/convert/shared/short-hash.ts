/**
 * Pure: a short, stable hash of a text (32-bit FNV-1a of its UTF-16 units, in base 36, at most 7
 * characters), to keep apart names that a rewrite into a narrower alphabet would otherwise merge.
 */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
