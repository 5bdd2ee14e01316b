import type { ReasoningIssuer } from '../../canonical/canonical-request.js';
import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import type { CanonicalStreamPart, ConversionContext, StreamEncoder } from '../../canonical/conversion.js';
import { formatOpenaiErrorWords } from '../../errors/format-openai-error-words.js';
import { encodeSseDone, encodeSseEvent } from '../../streaming/encode-sse.js';
import { mapToOpenaiChatFinishReason } from './map-openai-chat-finish-reason.js';
import { formatOpenaiChatThoughtSignature } from './map-openai-chat-thought-signature.js';
import { formatOpenaiChatUsage } from './read-openai-chat-usage.js';

export interface OpenaiChatStreamEncoderOptions {
  /** The client sent `stream_options.include_usage`: every chunk carries `usage: null`, and a usage-only chunk ends the stream. */
  includeUsage: boolean;
}

type Choice = Record<string, unknown>;

/**
 * Canonical parts → Chat Completions SSE as OpenAI sends it: a first chunk with `role`, deltas, tool calls by
 * `index` (id, type and name in the first fragment), a chunk with an empty delta and `finish_reason`, the
 * usage chunk with `choices: []` when asked for, then `[DONE]`. Reasoning goes out as DeepSeek's
 * `delta.reasoning_content`; an error as `{ error }`, which the official SDKs throw as an APIError. A Gemini
 * upstream's signature right before a tool call goes on that call's first fragment (`context.thoughtSignaturesOnToolCalls`).
 */
export function createOpenaiChatStreamEncoder(context: ConversionContext, options: OpenaiChatStreamEncoderOptions = { includeUsage: false }): StreamEncoder {
  const warnings: string[] = [];
  let id = '';
  let created = context.now;
  let started = false;
  let ended = false;
  let lastUsage: NormalizedUsage | undefined;
  /** An error chunk was written: no finish chunk may follow it. */
  let failed = false;
  /** A signature waiting for the tool call right after it (only with `thoughtSignaturesOnToolCalls`). */
  let pendingSignature: { signature: string; issuer: ReasoningIssuer | undefined } | undefined;
  const dropPendingSignature = () => {
    if (pendingSignature !== undefined) warnings.push('a reasoning signature cannot be expressed in Chat Completions; dropped');
    pendingSignature = undefined;
  };

  function chunk(choices: Choice[], usage: unknown = null): string {
    const body: Record<string, unknown> = { id, object: 'chat.completion.chunk', created, model: context.requestedModel, choices };
    if (options.includeUsage) body.usage = usage;
    return encodeSseEvent(JSON.stringify(body));
  }

  function delta(fields: Record<string, unknown>): string {
    return chunk([{ index: 0, delta: fields, logprobs: null, finish_reason: null }]);
  }

  function start(partId: string, partCreated: number): string {
    started = true;
    id = partId === '' ? context.newId('chatcmpl-') : partId;
    if (partCreated > 0) created = partCreated;
    return delta({ role: 'assistant', content: '' });
  }

  function finish(part: Extract<CanonicalStreamPart, { type: 'finish' }>): string {
    // After an error chunk OpenAI sends no finish: a reader that lets the last finish win must not see a stop.
    let text = '';
    if (!failed) {
      const reason = mapToOpenaiChatFinishReason(part.finishReason);
      warnings.push(...reason.warnings);
      text = chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: reason.value }]);
    }
    const usage = part.usage ?? lastUsage;
    if (options.includeUsage) {
      if (usage === undefined) warnings.push('the client asked for usage but the upstream reported none');
      else text += chunk([], formatOpenaiChatUsage(usage));
    }
    return text;
  }

  function encodePart(part: CanonicalStreamPart): string {
    if (pendingSignature !== undefined && part.type !== 'tool-call-start' && part.type !== 'usage' && part.type !== 'input-usage') dropPendingSignature();
    switch (part.type) {
      case 'start':
        return started ? '' : start(part.id, part.created);
      case 'text-delta':
        return part.text === '' ? '' : delta(part.refusal === true ? { refusal: part.text } : { content: part.text });
      case 'reasoning-delta':
        return part.text === '' ? '' : delta({ reasoning_content: part.text });
      case 'reasoning-signature':
        if (context.thoughtSignaturesOnToolCalls === true) pendingSignature = { signature: part.signature, issuer: part.issuer };
        else warnings.push('a reasoning signature cannot be expressed in Chat Completions; dropped');
        return '';
      case 'reasoning-redacted':
        warnings.push('redacted/encrypted reasoning cannot be expressed in Chat Completions; dropped');
        return '';
      case 'tool-call-start': {
        const signature = pendingSignature === undefined ? {} : formatOpenaiChatThoughtSignature(pendingSignature.signature, pendingSignature.issuer);
        pendingSignature = undefined;
        return delta({ tool_calls: [{ index: part.index, id: part.id, type: 'function', function: { name: part.name, arguments: '' }, ...signature }] });
      }
      case 'tool-call-delta':
        return part.argumentsDelta === '' ? '' : delta({ tool_calls: [{ index: part.index, function: { arguments: part.argumentsDelta } }] });
      case 'tool-call-end':
        return '';
      case 'usage':
        lastUsage = part.usage;
        return '';
      case 'input-usage':
      case 'web-searches':
      case 'uncarried-output':
      case 'output-item':
        return '';
      case 'finish':
        return finish(part);
      case 'error':
        failed = true;
        return encodeOpenaiChatStreamError(part.message, part.code);
      default: {
        const unhandled: never = part;
        throw new Error(`unhandled stream part ${JSON.stringify(unhandled)}`);
      }
    }
  }

  return {
    warnings,
    encode(part) {
      if (ended) return '';
      // The parts rules put `start` first; a stream that broke them still gets its role chunk.
      const opening = started || part.type === 'start' || part.type === 'error' ? '' : start('', 0);
      return opening + encodePart(part);
    },
    end() {
      if (ended) return '';
      ended = true;
      return encodeSseDone();
    },
  };
}

/**
 * A stream error as OpenAI writes one (the SDKs raise an APIError for a data event carrying `error`), in
 * OpenAI's words (formatOpenaiErrorWords): another vendor's code (`overloaded_error`, `UNAVAILABLE`) is
 * not one an OpenAI client branches on. The message is the upstream's own.
 */
export function encodeOpenaiChatStreamError(message: string, code: string | undefined): string {
  const words = formatOpenaiErrorWords(code);
  return encodeSseEvent(JSON.stringify({ error: { message, type: words.type, param: null, code: words.code } }));
}
