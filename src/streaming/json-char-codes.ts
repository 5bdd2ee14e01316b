/**
 * The character codes of JSON's structure (RFC 8259 §2), for the scanners that read JSON text or bytes
 * without parsing it (find-repeated-key.ts, find-top-level-usage.ts, find-quoted-key.ts): the same
 * numbers whether read with `charCodeAt` from a string or indexed from a Buffer, all being ASCII.
 */
export const quote = 0x22;
export const backslash = 0x5c;
export const openBrace = 0x7b;
export const closeBrace = 0x7d;
export const openBracket = 0x5b;
export const closeBracket = 0x5d;
export const colon = 0x3a;
export const comma = 0x2c;

/** JSON's four whitespace characters (`ws` in RFC 8259 §2). */
export const space = 0x20;
export const tab = 0x09;
export const lineFeed = 0x0a;
export const carriageReturn = 0x0d;

/** Whether a byte (or code unit) is JSON whitespace; an index past the end (undefined) is not. */
export function isJsonWhitespace(code: number | undefined): boolean {
  return code === space || code === lineFeed || code === carriageReturn || code === tab;
}
