type WirePart = Record<string, unknown>;

/**
 * Pure: a message's wire parts without its empty text parts (`{type: 'text', text: ''}`, `input_text` …):
 * Claude Code sends empty text blocks beside real content, and strict OpenAI-compatible servers refuse an
 * empty part. When nothing but empty text is there, the first part is kept, so that no message is left
 * without content (each formatter then sends it in the form its API takes for an empty message).
 */
export function dropEmptyTextParts(parts: WirePart[], textType: string): WirePart[] {
  const kept = parts.filter((part) => part.type !== textType || part.text !== '');
  return kept.length > 0 ? kept : parts.slice(0, 1);
}
