/**
 * A Gemini part has one opaque field, `thoughtSignature`, where the canonical model has two: `signature`
 * (Gemini's own, Anthropic thinking signatures) and `redactedData` (Anthropic `redacted_thinking`, a
 * Responses reasoning item's `encrypted_content`). Both must come back on the next turn of a tool loop:
 * Anthropic refuses, with thinking on, an assistant tool turn that does not start with its thinking, and a
 * Responses upstream under `store: false` needs the reasoning item before its function calls. Redacted
 * data travels behind this prefix, which a signature cannot start with (Gemini's and Anthropic's are
 * base64, OpenAI's encrypted content base64url: none holds a colon), as map-openai-responses-encrypted-content.ts
 * carries signatures, so a Gemini client replaying its turn returns each to its own field.
 */
const redactedPrefix = 'redacted:';

/** The `thoughtSignature` for a reasoning part, or undefined when it has no opaque data. */
export function formatGeminiThoughtSignature(part: { signature?: string; redactedData?: string }, warnings: string[]): string | undefined {
  if (part.redactedData === undefined) return part.signature;
  if (part.signature !== undefined) warnings.push('a reasoning part with both a signature and redacted data keeps only the redacted data');
  return formatGeminiRedactedSignature(part.redactedData);
}

/** The `thoughtSignature` that carries redacted reasoning. */
export function formatGeminiRedactedSignature(redactedData: string): string {
  return `${redactedPrefix}${redactedData}`;
}

/** A `thoughtSignature` (read by readThoughtSignature) → the canonical field it came from. */
export function parseGeminiThoughtSignature(value: string): { signature: string } | { redactedData: string } {
  return value.startsWith(redactedPrefix) ? { redactedData: value.slice(redactedPrefix.length) } : { signature: value };
}
