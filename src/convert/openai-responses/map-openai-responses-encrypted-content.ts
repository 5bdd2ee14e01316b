import type { Converted } from '../../canonical/conversion.js';

/**
 * A reasoning item has one opaque field, `encrypted_content`, where the canonical model has two: `redactedData`
 * (OpenAI's own encrypted reasoning, Anthropic `redacted_thinking`) and `signature` (Anthropic/Gemini thinking
 * signatures, which the upstream needs back on the next turn). Redacted data travels as is; a signature travels
 * behind this prefix, which neither base64 nor OpenAI's Fernet tokens (`gAAAA…`) can start with, so a Responses
 * client echoing the item back returns each to its own field.
 */
const signaturePrefix = 'signature:';

/** The `encrypted_content` for a reasoning part, or undefined when it has no opaque data. */
export function formatOpenaiResponsesEncryptedContent(part: { signature?: string; redactedData?: string }): Converted<string | undefined> {
  if (part.redactedData !== undefined) {
    const warnings = part.signature === undefined ? [] : ['a reasoning part with both a signature and redacted data keeps only the redacted data'];
    return { value: part.redactedData, warnings };
  }
  return { value: part.signature === undefined ? undefined : `${signaturePrefix}${part.signature}`, warnings: [] };
}

/** `encrypted_content` → the canonical field it came from. */
export function parseOpenaiResponsesEncryptedContent(value: string): { signature: string } | { redactedData: string } {
  return value.startsWith(signaturePrefix) ? { signature: value.slice(signaturePrefix.length) } : { redactedData: value };
}
