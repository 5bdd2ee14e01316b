import { carriageReturn, lineFeed, space as spaceCode, tab } from '../streaming/json-char-codes.js';

/**
 * Character kinds that decide how o200k's pre-tokenizer splits text (ASCII only; wider code units are
 * costed one by one). A lower-case letter after an upper-case one continues a word ("Hello"); an
 * upper-case letter after a lower-case one starts a new one ("camelCase" → "camel", "Case").
 */
const none = 0;
const lower = 1;
const upper = 2;
const digit = 3;
const space = 4;
const newline = 5;
const punctuation = 6;
/** U+0080–U+07FF: accented Latin, Greek, Cyrillic, Hebrew, Arabic (two UTF-8 bytes). */
const twoByte = 7;

const asciiKinds = new Uint8Array(128).fill(punctuation);
for (let code = 97; code <= 122; code += 1) asciiKinds[code] = lower;
for (let code = 65; code <= 90; code += 1) asciiKinds[code] = upper;
for (let code = 48; code <= 57; code += 1) asciiKinds[code] = digit;
asciiKinds[spaceCode] = space;
asciiKinds[tab] = space;
asciiKinds[lineFeed] = newline;
asciiKinds[carriageReturn] = newline;

/**
 * A cheap upper estimate of a text's o200k token count, for admission (the quota reservation and the
 * tokens-per-minute charge) without loading the tokenizer: one pass over the UTF-16 code units, no
 * allocation. Runs of one kind are costed as the tokenizer splits them at worst for ordinary text —
 * a letter run 1 token per 3 letters, digits per 3 (o200k groups digits by three), punctuation per 2,
 * a newline run 1, a space that does not join the next word 1, two-byte letters per 2, and every wider
 * code unit (CJK, kana, Hangul, emoji halves) 1.
 *
 * Measured against the tokenizer (estimate-text-tokens.test.ts): at or above the exact count for
 * English, code, JSON, Markdown and CJK, and within about 2× of it. Random strings (hex, base64, letter
 * salad) tokenize denser than any such rule and may be under-estimated; settlement never uses this.
 */
export function estimateTextTokens(text: string): number {
  let tokens = 0;
  let run = none;
  let length = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 0x800) {
      tokens += runCost(run, length, none) + 1;
      run = none;
      length = 0;
      continue;
    }
    const kind = code < 128 ? asciiKinds[code]! : twoByte;
    if (kind === run || (kind === lower && run === upper)) {
      length += 1;
      if (kind === lower) run = lower;
      continue;
    }
    tokens += runCost(run, length, kind);
    run = kind;
    length = 1;
  }
  return tokens + runCost(run, length, none);
}

/** Tokens of a finished run of `length` code units of `kind`, followed by a run of `next` (none = end or wide). */
function runCost(kind: number, length: number, next: number): number {
  switch (kind) {
    case lower:
    case upper:
    case digit:
      return Math.ceil(length / 3);
    case punctuation:
    case twoByte:
      return Math.ceil(length / 2);
    case newline:
      return 1;
    case space:
      // All but the last space form one token per 8 at most; the last joins a following word or
      // punctuation, but stands alone before digits and at the end.
      return Math.ceil((length - 1) / 8) + (next === digit || next === none ? 1 : 0);
    default:
      return 0;
  }
}
