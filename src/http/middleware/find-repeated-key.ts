import * as jsonCodes from '../../streaming/json-char-codes.js';

// This module's own constants, not the imported bindings: TurboFan (node 20) reloads an imported binding
// (a live one) at every use where it folds a module's own const (BENCHMARKS.md, session 38).
const { backslash, closeBrace, closeBracket, comma, openBrace, openBracket, quote } = jsonCodes;

/** Per open container: where its keys start in the key stacks; `inArray` for an array, `inSet` for an object whose keys moved to a Set. */
const inArray = -1;
const inSet = -2;
const linearLimit = 16;

// Scratch stacks, reused: the scan is synchronous, so no two calls share them at once.
const containerBases: number[] = [];
const keyStarts: number[] = [];
const keyEnds: number[] = [];
/** 1 when the key holds a backslash (its text is not its name). */
const keyEscaped: number[] = [];
/** Stacks grown past this by one deep or wide body are dropped after the call rather than kept for good. */
const retainedLength = 4096;

/**
 * The first key that one object of a JSON text names twice, as JSON.parse decodes it (`"mo\u0064el"` is
 * `model`), or undefined. JSON.parse keeps the last value of a repeated key; the raw bytes passed through
 * to an upstream carry both, and a parser that keeps the first (or refuses) would run a request other than
 * the one the gateway routed, limited and priced (RFC 8259 §4 leaves the choice to each reader).
 *
 * Runs on every JSON request, after JSON.parse accepted the text (it validates nothing). One pass: string
 * contents are jumped over with indexOf (a quote preceded by an odd run of backslashes is skipped), keys
 * are compared as slices of the text in place (decoded only when they hold a backslash), and the stacks are
 * reused from call to call, so a body without a repeat allocates nothing. An object of more than `linearLimit` keys moves its keys into a Set, so that a body
 * of a hundred thousand keys costs linear time too.
 */
export function findRepeatedKey(text: string): string | undefined {
  try {
    // Most bodies hold no backslash at all: then no key is looked into for escapes. Searched here, not in
    // scan: TurboFan sinks a pure search into the loop that reads it (see below).
    return scan(text, text.indexOf('\\') !== -1);
  } finally {
    if (containerBases.length > retainedLength) containerBases.length = 0;
    if (keyStarts.length > retainedLength) {
      keyStarts.length = 0;
      keyEnds.length = 0;
      keyEscaped.length = 0;
    }
  }
}

function scan(text: string, anyBackslash: boolean): string | undefined {
  const length = text.length;
  let depth = 0;
  let keyCount = 0;
  let expectKey = false;
  let bigObjects: Map<number, Set<string>> | undefined;
  let position = 0;
  while (position < length) {
    const code = text.charCodeAt(position);
    if (code === quote) {
      const start = position + 1;
      let end = text.indexOf('"', start);
      while (text.charCodeAt(end - 1) === backslash && isEscapedQuote(text, end)) end = text.indexOf('"', end + 1);
      position = end + 1;
      if (!expectKey) continue;
      expectKey = false;
      // Only a key is looked into for escapes (keys are short). Not with a search for the next backslash
      // kept from string to string: TurboFan (node 20) hoisted that search out of its branch and ran it at
      // every string, to the end of a text without backslashes: quadratic, 15× this scan on a 12 KB chat.
      const escaped = anyBackslash && holdsBackslash(text, start, end);
      const base = containerBases[depth - 1]!;
      if (base === inSet) {
        const keys = bigObjects!.get(depth)!;
        const name = keyName(text, start, end, escaped);
        if (keys.has(name)) return name;
        keys.add(name);
        continue;
      }
      for (let index = base; index < keyCount; index += 1) {
        if (sameKey(text, keyStarts[index]!, keyEnds[index]!, keyEscaped[index] === 1, start, end, escaped)) return keyName(text, start, end, escaped);
      }
      if (keyCount - base < linearLimit) {
        keyStarts[keyCount] = start;
        keyEnds[keyCount] = end;
        keyEscaped[keyCount] = escaped ? 1 : 0;
        keyCount += 1;
        continue;
      }
      const keys = new Set<string>();
      for (let index = base; index < keyCount; index += 1) keys.add(keyName(text, keyStarts[index]!, keyEnds[index]!, keyEscaped[index] === 1));
      keys.add(keyName(text, start, end, escaped));
      bigObjects ??= new Map();
      bigObjects.set(depth, keys);
      containerBases[depth - 1] = inSet;
      keyCount = base;
      continue;
    }
    switch (code) {
      case openBrace:
        containerBases[depth] = keyCount;
        depth += 1;
        expectKey = true;
        break;
      case openBracket:
        containerBases[depth] = inArray;
        depth += 1;
        expectKey = false;
        break;
      case closeBrace:
      case closeBracket: {
        depth -= 1;
        const base = containerBases[depth]!;
        if (base >= 0) keyCount = base;
        else if (base === inSet) bigObjects!.delete(depth + 1);
        expectKey = false;
        break;
      }
      case comma:
        expectKey = containerBases[depth - 1] !== inArray;
        break;
      default:
        break;
    }
    position += 1;
  }
  return undefined;
}

function holdsBackslash(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index += 1) if (text.charCodeAt(index) === backslash) return true;
  return false;
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function isEscapedQuote(text: string, at: number): boolean {
  let before = at - 1;
  while (text.charCodeAt(before) === backslash) before -= 1;
  return (at - 1 - before) % 2 === 1;
}

function keyName(text: string, start: number, end: number, escaped: boolean): string {
  return escaped ? (JSON.parse(text.slice(start - 1, end + 1)) as string) : text.slice(start, end);
}

function sameKey(text: string, start: number, end: number, escaped: boolean, otherStart: number, otherEnd: number, otherEscaped: boolean): boolean {
  if (escaped || otherEscaped) return keyName(text, start, end, escaped) === keyName(text, otherStart, otherEnd, otherEscaped);
  const length = end - start;
  if (otherEnd - otherStart !== length) return false;
  for (let offset = 0; offset < length; offset += 1) {
    if (text.charCodeAt(start + offset) !== text.charCodeAt(otherStart + offset)) return false;
  }
  return true;
}
