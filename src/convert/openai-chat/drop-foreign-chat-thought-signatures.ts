import type { Converted } from '../../canonical/conversion.js';
import { isReplayableTo, parseOpaqueReasoning, type NativeOpaque } from '../shared/map-opaque-reasoning.js';
import { isRecord } from '../shared/is-record.js';

/** Google's documented stand-in for a function call's missing signature (ai.google.dev/gemini-api/docs/thought-signatures). */
const skipSignatureValidator = 'skip_thought_signature_validator';
const native: NativeOpaque = { kind: 'signature', issuer: 'google' };

/**
 * A Chat client's body, for a Chat channel as sent (passthrough), without the thought signatures Google did
 * not issue in `tool_calls[i].extra_content.google.thought_signature` — the field of Google's
 * OpenAI-compatible endpoint, which verifies what it finds there: another vendor's signature or redacted
 * reasoning behind a tag (map-openai-chat-thought-signature.ts), as a client that carries a Gemini history
 * over to Chat hands it back. The call keeps Google's stand-in instead, as toward Gemini (Gemini 3 refuses
 * a replayed call without one). Google's own signature the gateway tagged (`signature:google:X`, or an
 * issuer-less `signature:X`) goes as `X`: Google cannot read the tag. Undefined when nothing had to change, so the client's bytes are sent unchanged;
 * only assistant tool calls that carry `extra_content` are looked at.
 */
export function dropForeignChatThoughtSignatures(body: Record<string, unknown>): Converted<Record<string, unknown>> | undefined {
  if (!Array.isArray(body.messages)) return undefined;
  const warnings: string[] = [];
  let messages: unknown[] | undefined;
  body.messages.forEach((message: unknown, index) => {
    if (!isRecord(message) || !Array.isArray(message.tool_calls)) return;
    let changed = false;
    const toolCalls = message.tool_calls.map((call: unknown, callIndex) => {
      const signature = signatureOf(call);
      if (signature === undefined) return call;
      const opaque = parseOpaqueReasoning(signature, native);
      if (opaque.kind === 'signature' && isReplayableTo(opaque.issuer, 'google')) {
        if (opaque.value === signature) return call;
        changed = true;
        return withSignature(call as Record<string, unknown>, opaque.value);
      }
      changed = true;
      warnings.push(`messages[${index}].tool_calls[${callIndex}]: a thought signature issued by ${opaque.issuer ?? 'another vendor'} cannot be verified by Google: dropped`);
      return withSignature(call as Record<string, unknown>, skipSignatureValidator);
    });
    if (!changed) return;
    messages ??= [...(body.messages as unknown[])];
    messages[index] = { ...message, tool_calls: toolCalls };
  });
  return messages === undefined ? undefined : { value: { ...body, messages }, warnings };
}

function signatureOf(call: unknown): string | undefined {
  if (!isRecord(call) || !isRecord(call.extra_content) || !isRecord(call.extra_content.google)) return undefined;
  const signature = call.extra_content.google.thought_signature;
  return typeof signature === 'string' && signature !== '' ? signature : undefined;
}

function withSignature(call: Record<string, unknown>, signature: string): Record<string, unknown> {
  const extra = call.extra_content as Record<string, unknown>;
  return { ...call, extra_content: { ...extra, google: { ...(extra.google as Record<string, unknown>), thought_signature: signature } } };
}
