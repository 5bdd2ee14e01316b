import type { ReasoningIssuer } from '../../canonical/canonical-request.js';
import { formatOpaqueReasoning, parseOpaqueReasoning, type NativeOpaque, type OpaqueReasoning } from '../shared/map-opaque-reasoning.js';

/**
 * A Gemini part has one opaque field, `thoughtSignature`, where the canonical model has two: `signature`
 * (Gemini's own, Anthropic thinking signatures) and `redactedData` (Anthropic `redacted_thinking`, a
 * Responses reasoning item's `encrypted_content`). Both must come back on the next turn of a tool loop:
 * Anthropic refuses, with thinking on, an assistant tool turn that does not start with its thinking, and a
 * Responses upstream under `store: false` needs the reasoning item before its function calls. Gemini's own
 * signatures are written as is; anything else behind a tag naming its kind and issuer
 * (`redacted:openai:…`, `signature:anthropic:…`: convert/shared/map-opaque-reasoning.ts), so a Gemini client
 * replaying its turn returns each to its own field, and each goes only to the vendor that issued it.
 * `redacted:…` without an issuer is how the gateway wrote redacted data before it tagged issuers.
 * An Anthropic signature carries the thinking it signs (`thinking:anthropic:…`), as the `thought` text the
 * client may hand back (or, without includeThoughts, never had) is not what Anthropic verifies.
 */
const native: NativeOpaque = { kind: 'signature', issuer: 'google' };

/** The `thoughtSignature` for a reasoning part, or undefined when it has no opaque data. */
export function formatGeminiThoughtSignature(part: { text: string; signature?: string; redactedData?: string; issuer?: ReasoningIssuer }, warnings: string[]): string | undefined {
  if (part.redactedData === undefined) return part.signature === undefined ? undefined : formatGeminiOpaque({ kind: 'signature', value: part.signature, issuer: part.issuer, thinking: part.text });
  if (part.signature !== undefined) warnings.push('a reasoning part with both a signature and redacted data keeps only the redacted data');
  return formatGeminiOpaque({ kind: 'redacted', value: part.redactedData, issuer: part.issuer });
}

/** The `thoughtSignature` that carries `opaque`. */
export function formatGeminiOpaque(opaque: OpaqueReasoning): string {
  return formatOpaqueReasoning(opaque, native);
}

/** A `thoughtSignature` (read by readThoughtSignature) → what it carries. */
export function parseGeminiThoughtSignature(value: string): OpaqueReasoning {
  return parseOpaqueReasoning(value, native);
}
