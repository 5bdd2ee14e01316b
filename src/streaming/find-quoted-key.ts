import { quote } from './json-char-codes.js';

/*
 * Searching JSON bytes for a key such as `"usage"` with Buffer#indexOf is slow: the needle starts with a
 * quote, the most frequent byte of JSON, and the search stops to compare at every one (5.5 µs for a 5 KB
 * read of 20 stream events, against 0.6 µs for `usage"`; BENCHMARKS.md, session 6). These search for the
 * needle without its opening quote, then check the byte before it.
 */

/** Index of the first `"` + `tail` at or after `from` in `bytes` (`tail` being e.g. `usage"`), or -1. */
export function indexOfQuoted(bytes: Buffer, tail: Buffer, from: number): number {
  for (let at = bytes.indexOf(tail, from + 1); at !== -1; at = bytes.indexOf(tail, at + 1)) {
    if (bytes[at - 1] === quote) return at - 1;
  }
  return -1;
}

/** Index of the last `"` + `tail` in `bytes`, or -1. */
export function lastIndexOfQuoted(bytes: Buffer, tail: Buffer): number {
  for (let at = bytes.lastIndexOf(tail); at > 0; at = bytes.lastIndexOf(tail, at - 1)) {
    if (bytes[at - 1] === quote) return at - 1;
  }
  return -1;
}
