import { lastIndexOfQuoted } from '../../streaming/find-quoted-key.js';
import * as jsonCodes from '../../streaming/json-char-codes.js';

// This module's own constants, not the imported bindings: TurboFan (node 20) reloads an imported binding
// (a live one) at every use where it folds a module's own const, and in the byte loop below that was about
// half of its instructions (BENCHMARKS.md, session 38).
const { backslash, closeBrace, closeBracket, isJsonWhitespace, openBrace, openBracket, quote } = jsonCodes;

const usageKey = Buffer.from('"usage":');
/** The key without its opening quote: what lastIndexOfQuoted searches for. */
const usageKeyTail = usageKey.subarray(1);

/**
 * The top-level `usage` object of a JSON answer, read without parsing the rest (a chat completion's
 * choices can be many kilobytes; its usage is a few hundred bytes near the end). Returns undefined whenever
 * this cheap path is not certain — no `"usage":` key written that way, a usage that is not an object, or
 * one that is not a member of the root object — and the caller then parses the whole answer.
 *
 * Why the last `"usage":` found is a key: in a JSON string every `"` is escaped, so the `"` after `usage`,
 * preceded by `e`, is a real delimiter, and so is the one before `usage` when no odd run of backslashes
 * precedes it; between two delimiters `usage` is a string, and a string followed by `:` is a key. Why it is
 * the root's: from just after the usage object, a string-aware scan must close exactly one object and then
 * reach the end of the answer. Being the last occurrence, it is the one JSON.parse keeps when the key
 * repeats. The part of the answer before the key is not validated (the client gets the bytes as sent).
 */
export function findTopLevelUsage(bytes: Buffer): Record<string, unknown> | undefined {
  const keyAt = lastIndexOfQuoted(bytes, usageKeyTail);
  if (keyAt <= 0) return undefined;
  let backslashes = 0;
  for (let index = keyAt - 1; index >= 0 && bytes[index] === backslash; index -= 1) backslashes += 1;
  if (backslashes % 2 === 1) return undefined;

  let start = keyAt + usageKey.length;
  while (isJsonWhitespace(bytes[start])) start += 1;
  if (bytes[start] !== openBrace) return undefined;
  const usageCloseAt = closingIndex(bytes, start + 1, 1);
  if (usageCloseAt === -1) return undefined;
  const end = usageCloseAt + 1;

  // The rest must close the object holding the key, and that object must be the root.
  const closeAt = closingIndex(bytes, end, 1);
  if (closeAt === -1 || bytes[closeAt] !== closeBrace) return undefined;
  for (let index = closeAt + 1; index < bytes.length; index += 1) if (!isJsonWhitespace(bytes[index])) return undefined;

  try {
    const usage: unknown = JSON.parse(bytes.toString('utf8', start, end));
    return usage !== null && typeof usage === 'object' && !Array.isArray(usage) ? (usage as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * From `from`, `depth` brackets deep, the index of the bracket that closes the outermost of them (strings
 * skipped: UTF-8 continuation bytes are never `"` or `\`); -1 when the bytes end first. One loop with the
 * length read once: a function per string and `bytes.length` at every byte doubled its instructions.
 */
function closingIndex(bytes: Buffer, from: number, depth: number): number {
  const length = bytes.length;
  for (let index = from; index < length; index += 1) {
    const byte = bytes[index];
    if (byte === quote) {
      // Past the string's closing quote; an escape's next byte is skipped whatever it is.
      for (index += 1; index < length; index += 1) {
        const inner = bytes[index];
        if (inner === quote) break;
        if (inner === backslash) index += 1;
      }
    } else if (byte === openBrace || byte === openBracket) {
      depth += 1;
    } else if (byte === closeBrace || byte === closeBracket) {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}
