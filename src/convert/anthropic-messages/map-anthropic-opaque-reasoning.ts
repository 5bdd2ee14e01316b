import type { ReasoningIssuer } from '../../canonical/canonical-request.js';
import { formatOpaqueReasoning, parseOpaqueReasoning, type NativeOpaque, type OpaqueReasoning } from '../shared/map-opaque-reasoning.js';

/**
 * An Anthropic client's two opaque fields: `thinking.signature` holds Anthropic's signatures as is, and a
 * Gemini thought signature tagged (`signature:google:…`); `redacted_thinking.data` holds Anthropic's
 * redacted thinking as is, and OpenAI's encrypted reasoning tagged (`redacted:openai:…`). So a client's
 * next turn tells the gateway which vendor each came from (convert/shared/map-opaque-reasoning.ts).
 */
const nativeSignature: NativeOpaque = { kind: 'signature', issuer: 'anthropic' };
const nativeRedacted: NativeOpaque = { kind: 'redacted', issuer: 'anthropic' };

/** `thinking.signature` for a signature of `issuer`. */
export function formatAnthropicThinkingSignature(signature: string, issuer: ReasoningIssuer | undefined): string {
  return formatOpaqueReasoning({ kind: 'signature', value: signature, issuer }, nativeSignature);
}

/** `redacted_thinking.data` for redacted reasoning of `issuer`. */
export function formatAnthropicRedactedData(data: string, issuer: ReasoningIssuer | undefined): string {
  return formatOpaqueReasoning({ kind: 'redacted', value: data, issuer }, nativeRedacted);
}

/** A client's `thinking.signature` → what it carries. */
export function parseAnthropicThinkingSignature(signature: string): OpaqueReasoning {
  return parseOpaqueReasoning(signature, nativeSignature);
}

/** A client's `redacted_thinking.data` → what it carries. */
export function parseAnthropicRedactedData(data: string): OpaqueReasoning {
  return parseOpaqueReasoning(data, nativeRedacted);
}
