import type { ReasoningIssuer } from '../../canonical/canonical-request.js';
import { formatOpaqueReasoning, parseOpaqueReasoning, toReasoningFields, type NativeOpaque, type ReasoningFields } from '../shared/map-opaque-reasoning.js';

/**
 * Chat Completions has no field for a reasoning signature. Google's OpenAI-compatible Gemini endpoint writes
 * a function call's thought signature on the tool call itself, `tool_calls[i].extra_content.google.thought_signature`
 * (ai.google.dev/gemini-api/docs/thought-signatures, "OpenAI compatibility"), and clients written for it send
 * it back there; the openai SDK keeps the field (it copies a tool call's unknown fields, whole and streamed).
 * Google's signatures go there as is, any other behind a tag naming its issuer
 * (convert/shared/map-opaque-reasoning.ts), so it goes back only to the vendor that issued it.
 */
const native: NativeOpaque = { kind: 'signature', issuer: 'google' };

export function formatOpenaiChatThoughtSignature(signature: string, issuer: ReasoningIssuer | undefined): { extra_content: { google: { thought_signature: string } } } {
  return { extra_content: { google: { thought_signature: formatOpaqueReasoning({ kind: 'signature', value: signature, issuer }, native) } } };
}

/** A replayed tool call's thought signature, if it carries one, as canonical reasoning fields. */
export function parseOpenaiChatThoughtSignature(call: Record<string, unknown>): ReasoningFields | undefined {
  const extra = call.extra_content;
  if (extra === null || typeof extra !== 'object') return undefined;
  const google = (extra as Record<string, unknown>).google;
  if (google === null || typeof google !== 'object') return undefined;
  const signature = (google as Record<string, unknown>).thought_signature;
  return typeof signature === 'string' && signature !== '' ? toReasoningFields(parseOpaqueReasoning(signature, native)) : undefined;
}
