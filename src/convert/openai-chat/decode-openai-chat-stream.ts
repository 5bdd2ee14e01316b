import { z } from 'zod';
import { newCallIdNonce } from '../shared/new-call-id-nonce.js';
import { generatedCallId } from './generated-call-id.js';
import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import type { CanonicalFinishReason } from '../../canonical/canonical-response.js';
import type { CanonicalStreamPart, StreamDecoder } from '../../canonical/conversion.js';
import { mapOpenaiChatFinishReason } from './map-openai-chat-finish-reason.js';
import { readOpenaiChatChunk, type OpenaiChatChunk, type OpenaiChatToolCallDelta } from './read-openai-chat-chunk.js';
import { readOpenaiChatUsage } from './read-openai-chat-usage.js';

/** A mid-stream error: OpenAI and its SDKs put `{ error: { message, type, code } }` in a data event. */
const errorSchema = z.object({ error: z.object({ message: z.string().nullish(), code: z.unknown(), type: z.unknown() }).passthrough() });

interface ToolCallState {
  /** Canonical index, given when the call starts (calls are numbered in the order they appear). */
  index: number | undefined;
  /** The id the upstream gave it, which its later fragments may repeat. */
  wireId: string | undefined;
  /** The id it goes out with: the wire's, or one made when the wire gave none or one already used. */
  id: string | undefined;
  name: string | undefined;
  /** Argument fragments that came before the name (some compatibles); sent right after the start. */
  pendingArguments: string;
  /** Whether any non-empty argument fragment came: a call with none gets `{}`. */
  sawArguments: boolean;
  ended: boolean;
}

/**
 * Upstream Chat Completions SSE events → canonical parts, each chunk as it arrives. Tool calls end with
 * the stream (Chat has no per-call end, calls may interleave, and some compatibles send argument fragments
 * after the `finish_reason`); they and `finish` go out at `[DONE]` or `end()`, after the usage-only chunk
 * that `stream_options.include_usage` adds.
 */
export function createOpenaiChatStreamDecoder(): StreamDecoder {
  const warnings: string[] = [];
  const warned = new Set<string>();
  let started = false;
  let finished = false;
  let sawDone = false;
  let responseId = '';
  let finishReason: CanonicalFinishReason | undefined;
  let usage: NormalizedUsage | undefined;
  let failed = false;
  let nextToolCallIndex = 0;
  const callsByWireIndex = new Map<number, ToolCallState>();
  const calls: ToolCallState[] = [];
  /** Ids given so far: a compatible server may repeat one (two parallel calls both `call_0`). */
  const usedIds = new Set<string>();
  const nonce = newCallIdNonce();

  function warnOnce(key: string, message: string): void {
    if (warned.has(key)) return;
    warned.add(key);
    warnings.push(message);
  }

  function start(parts: CanonicalStreamPart[], id: string, model: string, created: number): void {
    if (started) return;
    started = true;
    responseId = id;
    parts.push({ type: 'start', id, model, created });
  }

  function startToolCall(parts: CanonicalStreamPart[], call: ToolCallState, name: string): void {
    const index = nextToolCallIndex++;
    call.index = index;
    if (call.id === undefined || usedIds.has(call.id)) {
      const wire = call.id;
      call.id = generatedCallId(responseId, index, nonce);
      warnings.push(wire === undefined ? `tool call ${index} came without an id; ${call.id} given` : `tool call ${index} repeated the id ${wire}; ${call.id} given`);
    }
    usedIds.add(call.id);
    parts.push({ type: 'tool-call-start', index, id: call.id, name });
    if (call.pendingArguments !== '') parts.push({ type: 'tool-call-delta', index, argumentsDelta: call.pendingArguments });
    call.pendingArguments = '';
  }

  function readToolCall(parts: CanonicalStreamPart[], fragment: OpenaiChatToolCallDelta, position: number): void {
    const wireIndex = fragment.index ?? position;
    let call = callsByWireIndex.get(wireIndex);
    // Some compatibles number every parallel call 0 and tell them apart by id only.
    if (call === undefined || (fragment.id && call.wireId !== undefined && fragment.id !== call.wireId)) {
      call = { index: undefined, wireId: undefined, id: undefined, name: undefined, pendingArguments: '', sawArguments: false, ended: false };
      callsByWireIndex.set(wireIndex, call);
      calls.push(call);
    }
    if (fragment.id && call.wireId === undefined) {
      call.wireId = fragment.id;
      call.id ??= fragment.id;
    }
    if (fragment.name) call.name ??= fragment.name;
    const argumentsDelta = fragment.arguments ?? '';
    if (argumentsDelta !== '') call.sawArguments = true;
    if (call.index !== undefined) {
      if (argumentsDelta !== '') parts.push({ type: 'tool-call-delta', index: call.index, argumentsDelta });
      return;
    }
    call.pendingArguments += argumentsDelta;
    if (call.name !== undefined) startToolCall(parts, call, call.name);
  }

  function endToolCalls(parts: CanonicalStreamPart[]): void {
    for (const call of calls) {
      if (call.ended) continue;
      if (call.index === undefined) {
        warnings.push('a tool call ended without a name');
        startToolCall(parts, call, '');
      }
      call.ended = true;
      // A call without arguments (some compatibles stream "" for them) takes none: {}, as OpenAI sends it.
      if (!call.sawArguments) parts.push({ type: 'tool-call-delta', index: call.index ?? 0, argumentsDelta: '{}' });
      parts.push({ type: 'tool-call-end', index: call.index ?? 0 });
    }
  }

  function readChunk(parts: CanonicalStreamPart[], chunk: OpenaiChatChunk): void {
    const choices = chunk.choices;
    // Azure opens with a `prompt_filter_results` chunk that has no id and no choices: not yet the response.
    if (chunk.id || choices.length > 0 || (chunk.usage !== null && chunk.usage !== undefined)) {
      start(parts, chunk.id ?? '', chunk.model ?? '', chunk.created ?? 0);
    }
    for (const choice of choices) {
      if (choice.index !== 0) {
        warnOnce('choices', 'choices other than the first are dropped: only one is carried');
        continue;
      }
      const delta = choice.delta;
      if (delta.reasoning) parts.push({ type: 'reasoning-delta', text: delta.reasoning });
      if (delta.content) parts.push({ type: 'text-delta', text: delta.content });
      if (delta.refusal) parts.push({ type: 'text-delta', text: delta.refusal, refusal: true });
      for (const [position, fragment] of delta.toolCalls.entries()) readToolCall(parts, fragment, position);
      // The calls end with the stream ([DONE] or its end), not here: some compatibles send argument
      // fragments after the finish_reason.
      if (choice.finishReason) finishReason = mapOpenaiChatFinishReason(choice.finishReason);
    }
    const chunkUsage = readOpenaiChatUsage(chunk.usage);
    if (chunkUsage !== undefined) {
      usage = chunkUsage;
      parts.push({ type: 'usage', usage: chunkUsage });
    }
  }

  function finish(): CanonicalStreamPart[] {
    if (finished) return [];
    finished = true;
    const parts: CanonicalStreamPart[] = [];
    if (!started) warnings.push('the upstream stream held no chunk');
    start(parts, '', '', 0);
    endToolCalls(parts);
    if (finishReason === undefined && !failed) warnings.push('the upstream stream ended without a finish_reason');
    const reason = finishReason ?? { unified: failed ? 'error' : 'other', raw: undefined };
    parts.push({ type: 'finish', finishReason: reason, usage });
    return parts;
  }

  return {
    warnings,
    push(event) {
      if (event.data === '[DONE]') {
        sawDone = true;
        return finish();
      }
      if (finished) {
        warnOnce('after-done', 'events after [DONE] are ignored');
        return [];
      }
      // An empty data line is a keep-alive some compatibles send, not a chunk.
      if (event.data.trim() === '') return [];
      const parts: CanonicalStreamPart[] = [];
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        json = undefined;
      }
      // Checked by key first: a failed safeParse builds a ZodError, too slow for every chunk.
      const upstreamError = json !== null && typeof json === 'object' && 'error' in json ? errorSchema.safeParse(json) : { success: false as const };
      const chunk = upstreamError.success ? undefined : readOpenaiChatChunk(json);
      if (upstreamError.success) {
        const { message, code, type } = upstreamError.data.error;
        const errorCode = typeof code === 'string' ? code : typeof type === 'string' ? type : undefined;
        failed = true;
        start(parts, '', '', 0);
        parts.push(errorCode === undefined ? { type: 'error', message: message ?? 'upstream error' } : { type: 'error', message: message ?? 'upstream error', code: errorCode });
      } else if (chunk !== undefined) {
        readChunk(parts, chunk);
      } else {
        failed = true;
        warnings.push(`a malformed chunk was received: ${event.data.slice(0, 200)}`);
        start(parts, '', '', 0);
        parts.push({ type: 'error', message: 'the upstream sent a malformed stream chunk', code: 'invalid_chunk' });
      }
      return parts;
    },
    end() {
      return finish();
    },
    get complete() {
      return sawDone || failed || finishReason !== undefined;
    },
  };
}
