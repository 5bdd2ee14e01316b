import { isRecord } from '../../convert/shared/is-record.js';
import { isPlaceholderSignature, readThoughtSignature } from '../../convert/gemini/read-thought-signature.js';
import type { GeminiPart } from '../../convert/gemini/gemini-wire-schema.js';
import type { UpstreamTextStyle } from '../../providers/provider-request.js';
import { estimateOpaqueTokens } from '../estimate-opaque-tokens.js';

/**
 * Pure: the opaque reasoning a converted request body carries to its upstream, at the prompt estimate's
 * token per 4 characters (estimate-opaque-tokens.ts), read from the fields of the upstream's style:
 * Anthropic `thinking.signature` and `redacted_thinking.data`, a Responses input item's
 * `encrypted_content`, Gemini `thoughtSignature` (not Google's stand-ins, which sign nothing), a Chat tool
 * call's `extra_content.google.thought_signature`. Set against the client's (TextInbound
 * `opaquePromptTokens`), it is what the conversion left out — another vendor's signatures, reasoning a
 * style has no field for — which a local count must not bill.
 */
export function estimateSentOpaqueTokens(style: UpstreamTextStyle, body: Record<string, unknown>): number {
  switch (style) {
    case 'anthropic-messages':
      return sumOver(body.messages, (message) => sumOver(message.content, (block) => (block.type === 'thinking' ? opaque(block.signature) : block.type === 'redacted_thinking' ? opaque(block.data) : 0)));
    case 'openai-responses':
      return sumOver(body.input, (item) => opaque(item.encrypted_content));
    case 'gemini':
      return sumOver(body.contents, (content) => sumOver(content.parts, (part) => estimateOpaqueTokens(readThoughtSignature(part as GeminiPart))));
    case 'openai-chat':
      return sumOver(body.messages, (message) => sumOver(message.tool_calls, (call) => opaque(chatThoughtSignatureOf(call))));
  }
}

/** A Chat tool call's `extra_content.google.thought_signature`, when it has one that is not Google's stand-in. */
export function chatThoughtSignatureOf(call: Record<string, unknown>): string | undefined {
  const signature = isRecord(call.extra_content) && isRecord(call.extra_content.google) ? call.extra_content.google.thought_signature : undefined;
  return typeof signature === 'string' && !isPlaceholderSignature(signature) ? signature : undefined;
}

function opaque(value: unknown): number {
  return typeof value === 'string' ? estimateOpaqueTokens(value) : 0;
}

function sumOver(list: unknown, measure: (item: Record<string, unknown>) => number): number {
  let sum = 0;
  if (Array.isArray(list)) for (const item of list) if (isRecord(item)) sum += measure(item);
  return sum;
}
