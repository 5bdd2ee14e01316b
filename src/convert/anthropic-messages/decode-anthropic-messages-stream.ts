import type { StreamDecoder } from '../../canonical/conversion.js';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import type { SseEvent } from '../../streaming/decode-sse.js';
import {
  anthropicDeltaSchema,
  anthropicResponseBlockSchema,
  anthropicStreamEventSchema,
  anthropicStreamEventTypes,
  type AnthropicUsage,
} from './anthropic-messages-wire-schema.js';
import { mapAnthropicStopReason } from './map-anthropic-messages-finish-reason.js';
import { mergeAnthropicMessagesUsage } from './merge-anthropic-messages-usage.js';
import { readAnthropicMessagesUsage } from './read-anthropic-messages-usage.js';

type OpenBlock = { kind: 'text' } | { kind: 'reasoning' } | { kind: 'tool'; toolIndex: number; sawArguments: boolean } | { kind: 'dropped'; blockType: string };

/**
 * Upstream Anthropic SSE events (protocols.md §6.1) → canonical parts, each event as it arrives.
 * Content blocks map by kind: text → text-delta, thinking → reasoning-delta + reasoning-signature,
 * redacted_thinking → reasoning-redacted, tool_use → tool-call-start/-delta/-end with tool indexes
 * counted from 0. `usage` follows every message_delta (counters are cumulative; a field sent there
 * replaces the one from message_start, except that input counters all written as 0 do not wipe figures
 * reported above 0: merge-anthropic-messages-usage.ts); `finish` comes at message_stop, or at end() if the upstream broke off.
 * message_start's usage alone is interim (`output_tokens: 1`): `finish` carries usage only once a
 * message_delta reported some, so a stream that failed or broke off before one is billed at
 * message_start's input (carried on `start`) and its output counted locally.
 */
export function createAnthropicMessagesStreamDecoder(): StreamDecoder {
  const warnings: string[] = [];
  const warn = (message: string): void => {
    if (!warnings.includes(message)) warnings.push(message);
  };
  const blocks = new Map<number, OpenBlock>();
  let started = false;
  let finished = false;
  /** message_stop, a message_delta's stop_reason, or an error event came. */
  let terminal = false;
  let failed = false;
  let toolCount = 0;
  let stopReason: string | null | undefined;
  let usage: AnthropicUsage | undefined;
  /** A message_delta reported usage: `usage` holds final counts, not message_start's interim ones. */
  let usageReported = false;

  function mergeUsage(next: AnthropicUsage): void {
    usage = mergeAnthropicMessagesUsage(usage, next);
  }

  function ensureStarted(parts: CanonicalStreamPart[]): void {
    if (started) return;
    started = true;
    warn('the stream had no message_start');
    parts.push({ type: 'start', id: '', model: '', created: 0 });
  }

  function startBlock(index: number, raw: { type: string }, parts: CanonicalStreamPart[]): void {
    if (blocks.has(index)) warn(`content block ${index} started twice`);
    const parsed = anthropicResponseBlockSchema.safeParse(raw);
    if (!parsed.success) {
      warn(`a '${raw.type}' content block is not carried: dropped`);
      blocks.set(index, { kind: 'dropped', blockType: raw.type });
      return;
    }
    const block = parsed.data;
    switch (block.type) {
      case 'text':
        blocks.set(index, { kind: 'text' });
        if (block.text !== '') parts.push({ type: 'text-delta', text: block.text });
        if (block.citations != null && block.citations.length > 0) warn('text citations are not carried');
        return;
      case 'thinking':
        blocks.set(index, { kind: 'reasoning' });
        if (block.thinking !== '') parts.push({ type: 'reasoning-delta', text: block.thinking });
        if (block.signature != null && block.signature !== '') parts.push({ type: 'reasoning-signature', signature: block.signature, issuer: 'anthropic' });
        return;
      case 'redacted_thinking':
        blocks.set(index, { kind: 'reasoning' });
        parts.push({ type: 'reasoning-redacted', data: block.data, issuer: 'anthropic' });
        return;
      case 'tool_use': {
        const toolIndex = toolCount++;
        parts.push({ type: 'tool-call-start', index: toolIndex, id: block.id, name: block.name });
        // Anthropic starts with `input: {}` and streams the JSON; some relays send the whole input here instead.
        const prefilled = typeof block.input === 'object' && block.input !== null && Object.keys(block.input).length > 0;
        if (prefilled) parts.push({ type: 'tool-call-delta', index: toolIndex, argumentsDelta: JSON.stringify(block.input) });
        blocks.set(index, { kind: 'tool', toolIndex, sawArguments: prefilled });
        return;
      }
      default: {
        const unhandled: never = block;
        throw new Error(`unhandled block ${JSON.stringify(unhandled)}`);
      }
    }
  }

  function applyDelta(index: number, raw: { type: string }, parts: CanonicalStreamPart[]): void {
    const block = blocks.get(index);
    if (block === undefined) return warn(`a delta for content block ${index}, which is not open, was dropped`);
    if (block.kind === 'dropped') return;
    const parsed = anthropicDeltaSchema.safeParse(raw);
    if (!parsed.success) return warn(`a '${raw.type}' delta is not carried: dropped`);
    const delta = parsed.data;
    const mismatch = (): void => warn(`a ${delta.type} in a ${block.kind} block was dropped`);
    switch (delta.type) {
      case 'text_delta':
        if (block.kind !== 'text') return mismatch();
        if (delta.text !== '') parts.push({ type: 'text-delta', text: delta.text });
        return;
      case 'thinking_delta':
        if (block.kind !== 'reasoning') return mismatch();
        if (delta.thinking !== '') parts.push({ type: 'reasoning-delta', text: delta.thinking });
        return;
      case 'signature_delta':
        if (block.kind !== 'reasoning') return mismatch();
        parts.push({ type: 'reasoning-signature', signature: delta.signature, issuer: 'anthropic' });
        return;
      case 'input_json_delta':
        if (block.kind !== 'tool') return mismatch();
        if (delta.partial_json === '') return;
        block.sawArguments = true;
        parts.push({ type: 'tool-call-delta', index: block.toolIndex, argumentsDelta: delta.partial_json });
        return;
      default: {
        const unhandled: never = delta;
        throw new Error(`unhandled delta ${JSON.stringify(unhandled)}`);
      }
    }
  }

  function stopBlock(index: number, parts: CanonicalStreamPart[]): void {
    const block = blocks.get(index);
    blocks.delete(index);
    if (block?.kind !== 'tool') return;
    // A call without arguments streams nothing (or ""): its input is {} (protocols.md §6.1).
    if (!block.sawArguments) parts.push({ type: 'tool-call-delta', index: block.toolIndex, argumentsDelta: '{}' });
    parts.push({ type: 'tool-call-end', index: block.toolIndex });
  }

  function finish(parts: CanonicalStreamPart[]): void {
    for (const index of [...blocks.keys()]) stopBlock(index, parts);
    finished = true;
    const finishReason = failed ? { unified: 'error' as const, raw: stopReason ?? undefined } : mapAnthropicStopReason(stopReason);
    parts.push({ type: 'finish', finishReason, usage: usageReported && usage !== undefined ? readAnthropicMessagesUsage(usage) : undefined });
  }

  function push(event: SseEvent): CanonicalStreamPart[] {
    if (finished) {
      warn('events after message_stop were ignored');
      return [];
    }
    let payload: unknown;
    try {
      payload = JSON.parse(event.data);
    } catch {
      warn(`an event that is not JSON was dropped: ${JSON.stringify(event.data.slice(0, 200))}`);
      return [];
    }
    const parsed = anthropicStreamEventSchema.safeParse(payload);
    if (!parsed.success) {
      const type = typeof payload === 'object' && payload !== null && 'type' in payload ? String(payload.type) : event.event ?? 'untyped';
      // Anthropic: "clients must ignore unknown event types"; we still say so in the log.
      warn(anthropicStreamEventTypes.has(type) ? `a malformed ${type} event was dropped` : `an unknown '${type}' event was ignored`);
      return [];
    }
    const parts: CanonicalStreamPart[] = [];
    const wire = parsed.data;
    switch (wire.type) {
      case 'message_start': {
        if (started) {
          warn('a second message_start was ignored');
          break;
        }
        started = true;
        const { message } = wire;
        if (message.usage !== undefined) mergeUsage(message.usage);
        // Its input counts are final (Anthropic bills them whatever follows); its output is interim. Some
        // proxies report 0 here and the input only in message_delta: a 0 is no report.
        const reported = usage === undefined ? undefined : readAnthropicMessagesUsage(usage).input;
        const inputUsage = reported !== undefined && reported.total > 0 ? reported : undefined;
        parts.push(inputUsage === undefined ? { type: 'start', id: message.id, model: message.model ?? '', created: 0 } : { type: 'start', id: message.id, model: message.model ?? '', created: 0, inputUsage });
        // A message_start that already has its stop reason is a whole message (some proxies): its usage is final.
        if (message.stop_reason != null) {
          stopReason = message.stop_reason;
          usageReported = message.usage !== undefined;
        }
        // Some proxies put whole blocks in message_start: carry them as if streamed.
        for (const [offset, block] of (message.content ?? []).entries()) {
          startBlock(-1 - offset, block, parts);
          stopBlock(-1 - offset, parts);
        }
        break;
      }
      case 'content_block_start':
        ensureStarted(parts);
        startBlock(wire.index, wire.content_block, parts);
        break;
      case 'content_block_delta':
        applyDelta(wire.index, wire.delta, parts);
        break;
      case 'content_block_stop':
        stopBlock(wire.index, parts);
        break;
      case 'message_delta': {
        ensureStarted(parts);
        const { delta } = wire;
        if (delta.stop_reason != null) {
          stopReason = delta.stop_reason;
          terminal = true;
        }
        if (delta.stop_sequence != null) warn(`stop_sequence ${JSON.stringify(delta.stop_sequence)} is not carried (only the stop reason is)`);
        if (delta.stop_details != null) warn(`stop_details are not carried: ${JSON.stringify(delta.stop_details)}`);
        if (delta.container != null) warn('container is not carried');
        if (wire.usage !== undefined) {
          mergeUsage(wire.usage);
          usageReported = true;
          if (usage !== undefined) parts.push({ type: 'usage', usage: readAnthropicMessagesUsage(usage) });
        }
        break;
      }
      case 'message_stop':
        terminal = true;
        ensureStarted(parts);
        finish(parts);
        break;
      case 'ping':
        break;
      case 'error':
        ensureStarted(parts);
        failed = true;
        terminal = true;
        parts.push({ type: 'error', message: wire.error.message, code: wire.error.type });
        break;
      default: {
        const unhandled: never = wire;
        throw new Error(`unhandled event ${JSON.stringify(unhandled)}`);
      }
    }
    return parts;
  }

  return {
    push,
    end() {
      if (finished) return [];
      const parts: CanonicalStreamPart[] = [];
      ensureStarted(parts);
      if (!failed) warn('the stream ended without message_stop');
      finish(parts);
      return parts;
    },
    get complete() {
      return terminal;
    },
    get warnings() {
      return warnings;
    },
  };
}
