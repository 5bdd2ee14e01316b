/** The most of a client's own text (a model name, a JSON key) an error message quotes, in UTF-16 units. */
export const maxQuotedChars = 128;

/**
 * Pure: a client's text as an error message quotes it — whole when short, else its first `maxQuotedChars`
 * and how much was cut (`gpt-…… (99,872 more characters)`). An error echoing a name in full is as large as
 * the name: a client could make the gateway send back a frame (or a body) as large as the one it sent.
 * A cut never splits a surrogate pair.
 */
export function quoteClientText(text: string): string {
  if (text.length <= maxQuotedChars) return text;
  const end = isHighSurrogate(text.charCodeAt(maxQuotedChars - 1)) ? maxQuotedChars - 1 : maxQuotedChars;
  const cut = text.length - end;
  return `${text.slice(0, end)}… (${cut.toLocaleString('en-US')} more ${cut === 1 ? 'character' : 'characters'})`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
