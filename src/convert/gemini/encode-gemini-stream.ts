import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import type { ConversionContext, StreamEncoder } from '../../canonical/conversion.js';
import { encodeSseEvent } from '../../streaming/encode-sse.js';
import type { GeminiWirePart } from './format-gemini-model-parts.js';
import { formatGeminiErrorStatus } from './format-gemini-error-status.js';
import { formatGeminiFinishReason } from './map-gemini-finish-reason.js';
import { formatGeminiOpaque } from './map-gemini-thought-signature.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import { formatGeminiUsage } from './read-gemini-usage.js';

interface BufferedCall {
  id: string;
  name: string;
  arguments: string;
  signature: { thoughtSignature?: string };
}

/**
 * Canonical parts → `streamGenerateContent?alt=sse` as Google sends it: one whole GenerateContentResponse
 * per `data:` event, no closing event, `usageMetadata` on every chunk once known and final on the chunk
 * that carries `finishReason`. Gemini sends function calls whole, so a call's arguments are held until
 * its `tool-call-end` (only that call's; text keeps flowing). A signature is written on the text or call
 * that follows it, else on its own empty part, as `formatGeminiModelParts` does; so is redacted reasoning,
 * carried as a signature.
 */
export function createGeminiStreamEncoder(context: ConversionContext): StreamEncoder {
  const warnings: string[] = [];
  const calls = new Map<number, BufferedCall>();
  let responseId: string | undefined;
  let usage: NormalizedUsage | undefined;
  let lastWasReasoning = false;
  /** The thinking text since the last signature: the text an Anthropic signature signs, which travels with it. */
  let reasoningText = '';
  let pendingSignature: { signature: string; afterReasoning: boolean } | undefined;
  let finished = false;

  const warnOnce = (warning: string) => {
    if (!warnings.includes(warning)) warnings.push(warning);
  };
  const id = () => (responseId ??= context.newId(''));

  function takeSignature(): { thoughtSignature?: string } {
    const signature = pendingSignature?.signature;
    pendingSignature = undefined;
    return signature === undefined ? {} : { thoughtSignature: signature };
  }

  /** The pending signature as a part of its own (nothing it could sign follows). */
  function signaturePart(): GeminiWirePart[] {
    if (pendingSignature === undefined) return [];
    const thought = pendingSignature.afterReasoning ? { thought: true } : {};
    return [{ text: '', ...thought, ...takeSignature() }];
  }

  function frame(parts: GeminiWirePart[], finishReason?: string): string {
    const usageMetadata = usage === undefined ? undefined : formatGeminiUsage(usage);
    usageMetadata?.warnings.forEach(warnOnce);
    const candidate = { content: { parts, role: 'model' }, ...(finishReason === undefined ? {} : { finishReason }), index: 0 };
    const body = { candidates: [candidate], ...(usageMetadata === undefined ? {} : { usageMetadata: usageMetadata.value }), modelVersion: context.requestedModel, responseId: id() };
    return encodeSseEvent(JSON.stringify(body));
  }

  function callPart(call: BufferedCall): GeminiWirePart {
    const args = parseToolArguments(call.arguments);
    if (args.warning !== undefined) warnOnce(`tool call ${call.id}: ${args.warning}`);
    return { functionCall: { id: call.id, name: call.name, args: args.value }, ...call.signature };
  }

  return {
    warnings,
    encode(part) {
      if (finished) return '';
      switch (part.type) {
        case 'start':
          responseId = part.id === '' ? undefined : part.id;
          return '';
        case 'text-delta':
          lastWasReasoning = false;
          reasoningText = '';
          return frame([{ text: part.text, ...takeSignature() }]);
        case 'reasoning-delta': {
          reasoningText += part.text;
          // Without includeThoughts Gemini sends no thought text; a signature still follows (takeSignature).
          if (context.omitReasoningText === true) {
            lastWasReasoning = true;
            return '';
          }
          const parts = [...signaturePart(), { text: part.text, thought: true }];
          lastWasReasoning = true;
          return frame(parts);
        }
        case 'reasoning-signature':
        case 'reasoning-redacted': {
          // Redacted reasoning travels as a signature the client hands back (map-gemini-thought-signature.ts).
          const signature = formatGeminiOpaque(part.type === 'reasoning-signature' ? { kind: 'signature', value: part.signature, issuer: part.issuer, thinking: reasoningText } : { kind: 'redacted', value: part.data, issuer: part.issuer });
          reasoningText = '';
          const flushed = pendingSignature === undefined ? '' : frame(signaturePart());
          pendingSignature = { signature, afterReasoning: lastWasReasoning };
          return flushed;
        }
        case 'tool-call-start':
          lastWasReasoning = false;
          reasoningText = '';
          calls.set(part.index, { id: part.id, name: part.name, arguments: '', signature: takeSignature() });
          return '';
        case 'tool-call-delta': {
          const call = calls.get(part.index);
          if (call === undefined) warnOnce(`tool-call-delta for unknown call index ${part.index} was dropped`);
          else call.arguments += part.argumentsDelta;
          return '';
        }
        case 'tool-call-end': {
          const call = calls.get(part.index);
          calls.delete(part.index);
          return call === undefined ? '' : frame([callPart(call)]);
        }
        case 'usage':
          usage = part.usage;
          return '';
        case 'input-usage':
        case 'web-searches':
        case 'uncarried-output':
        case 'output-item':
          return '';
        case 'finish': {
          finished = true;
          usage = part.usage ?? usage;
          const unended = [...calls.values()].map(callPart);
          if (unended.length > 0) warnOnce('tool calls that never ended were sent with the arguments received');
          calls.clear();
          const parts = [...unended, ...signaturePart()];
          return frame(parts.length === 0 ? [{ text: '' }] : parts, formatGeminiFinishReason(part.finishReason));
        }
        case 'error': {
          // Google writes a mid-stream error as a bare JSON object, not a `data:` event: @google/genai raises
          // ApiError only for a read that parses as `{"error": …}` whole, and one merged with earlier events
          // stays an unterminated segment it refuses at the end. So nothing may follow it: the stream stops.
          finished = true;
          return encodeGeminiStreamError(part.message, part.code);
        }
        default: {
          const unhandled: never = part;
          throw new Error(`unhandled stream part ${JSON.stringify(unhandled)}`);
        }
      }
    },
    end() {
      if (!finished && calls.size > 0) warnOnce('the stream ended before its tool calls did; they were not sent');
      return '';
    },
  };
}

/** A mid-stream error as Google writes one: a bare error object, not a `data:` event (see the encoder). */
export function encodeGeminiStreamError(message: string, code: string | undefined): string {
  const status = formatGeminiErrorStatus(code);
  return JSON.stringify({ error: { code: status.code, message, status: status.status } });
}
