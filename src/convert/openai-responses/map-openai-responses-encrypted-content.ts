import type { ReasoningIssuer } from '../../canonical/canonical-request.js';
import type { Converted } from '../../canonical/conversion.js';
import { formatOpaqueReasoning, parseOpaqueReasoning, type NativeOpaque, type OpaqueReasoning } from '../shared/map-opaque-reasoning.js';

/**
 * A reasoning item has one opaque field, `encrypted_content`, where the canonical model has two: `redactedData`
 * (OpenAI's own encrypted reasoning, Anthropic `redacted_thinking`) and `signature` (Anthropic/Gemini thinking
 * signatures, which the upstream needs back on the next turn). OpenAI's own travels as is; anything else
 * behind a tag naming its kind and issuer (`signature:google:…`, `redacted:anthropic:…`:
 * convert/shared/map-opaque-reasoning.ts), which neither base64 nor OpenAI's Fernet tokens (`gAAAA…`) can
 * start with, so a Responses client echoing the item back returns each to its own field and vendor.
 * `signature:…` without an issuer is how the gateway wrote signatures before it tagged issuers.
 * An Anthropic signature carries the thinking it signs (`thinking:anthropic:…`): the client holds that text
 * as the item's summary, which OpenAI does not verify and a client may hand back changed or not at all.
 */
const native: NativeOpaque = { kind: 'redacted', issuer: 'openai' };

/** The `encrypted_content` for a reasoning part, or undefined when it has no opaque data. */
export function formatOpenaiResponsesEncryptedContent(part: { text: string; signature?: string; redactedData?: string; issuer?: ReasoningIssuer }): Converted<string | undefined> {
  if (part.redactedData !== undefined) {
    const warnings = part.signature === undefined ? [] : ['a reasoning part with both a signature and redacted data keeps only the redacted data'];
    return { value: formatOpaqueReasoning({ kind: 'redacted', value: part.redactedData, issuer: part.issuer }, native), warnings };
  }
  return { value: part.signature === undefined ? undefined : formatOpaqueReasoning({ kind: 'signature', value: part.signature, issuer: part.issuer, thinking: part.text }, native), warnings: [] };
}

/** `encrypted_content` → what it carries. */
export function parseOpenaiResponsesEncryptedContent(value: string): OpaqueReasoning {
  return parseOpaqueReasoning(value, native);
}
