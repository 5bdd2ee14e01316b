import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import type { ConversionContext, StreamEncoder } from '../../canonical/conversion.js';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { mapErrorKind } from '../../errors/map-error-kind.js';
import { readErrorKind } from '../../errors/read-error-kind.js';
import { encodeSseEvent } from '../../streaming/encode-sse.js';
import { finishReasonOfTurn, formatAnthropicStopReason } from './map-anthropic-messages-finish-reason.js';
import { formatAnthropicMessagesUsage } from './read-anthropic-messages-usage.js';
import { formatAnthropicRedactedData, formatAnthropicThinkingSignature } from './map-anthropic-opaque-reasoning.js';

type OpenBlock = { kind: 'text' | 'thinking'; index: number } | { kind: 'tool'; index: number; toolIndex: number };

/** Whitespace-only text, which Anthropic refuses as a block ("text content blocks must contain non-whitespace text"). */
const isBlank = (text: string): boolean => text.trim() === '';

/**
 * Canonical parts → the SSE a /v1/messages client expects (protocols.md §6.1): message_start, one content
 * block at a time (content_block_start / _delta / _stop), message_delta with stop_reason and the whole usage,
 * then message_stop at end(). Anthropic blocks never interleave, so while a tool call's block is open, parts
 * for other blocks wait (in order) until it ends; everything else is written as it arrives.
 *
 * A text block is opened by its first non-whitespace character: whitespace before it is held back (only
 * whitespace is ever held, so text still streams as it comes), and a run of text that is whitespace only
 * never becomes a block. OpenAI-compatible models stream "\n\n" before their tool calls; handed on as a
 * block, Claude Code replays it to Claude, which refuses the whole history.
 */
export function createAnthropicMessagesStreamEncoder(context: ConversionContext): StreamEncoder {
  const warnings: string[] = [];
  const warn = (message: string): void => {
    if (!warnings.includes(message)) warnings.push(message);
  };
  const startedToolCalls = new Set<number>();
  let waiting: CanonicalStreamPart[] = [];
  let open: OpenBlock | undefined;
  /** Whitespace of a text run whose block is not open yet: written before its first other character, dropped if none comes. */
  let heldWhitespace = '';
  let nextBlockIndex = 0;
  let started = false;
  let finished = false;
  let failed = false;
  let sawToolCall = false;
  let sawRefusal = false;
  let latestUsage: NormalizedUsage | undefined;

  const event = (type: string, data: Record<string, unknown>): string => encodeSseEvent(JSON.stringify({ type, ...data }), type);

  function messageStart(): string {
    started = true;
    // Other styles report usage only at the end, and message_start is not held back for it: its zeros are
    // made good by message_delta, whose input and cache counts the SDK's MessageStream copies.
    const message = {
      id: context.newId('msg_'), type: 'message', role: 'assistant', model: context.requestedModel, content: [],
      stop_reason: null, stop_sequence: null,
      usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
    };
    return event('message_start', { message });
  }

  function closeBlock(): string {
    if (open === undefined) return '';
    const closed = open;
    open = undefined;
    return event('content_block_stop', { index: closed.index });
  }

  function openBlock(block: OpenBlock, contentBlock: Record<string, unknown>): string {
    const text = closeBlock();
    open = block;
    return text + event('content_block_start', { index: block.index, content_block: contentBlock });
  }

  /** Opens a text or thinking block unless one of that kind is open. */
  function ensureBlock(kind: 'text' | 'thinking'): string {
    if (open?.kind === kind) return '';
    const contentBlock = kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' };
    return openBlock({ kind, index: nextBlockIndex++ }, contentBlock);
  }

  const delta = (data: Record<string, unknown>): string => event('content_block_delta', { index: open?.index ?? 0, delta: data });

  const openToolIndex = (): number | undefined => (open?.kind === 'tool' ? open.toolIndex : undefined);
  const belongsToOpenTool = (part: CanonicalStreamPart): boolean =>
    (part.type === 'tool-call-delta' || part.type === 'tool-call-end') && part.index === openToolIndex();

  /** Text goes into the open text block; with none open, whitespace waits for the character that opens one. */
  function writeText(text: string): string {
    if (open?.kind === 'text') return text === '' ? '' : delta({ type: 'text_delta', text });
    if (isBlank(text)) {
      heldWhitespace += text;
      return '';
    }
    const held = heldWhitespace;
    heldWhitespace = '';
    return ensureBlock('text') + delta({ type: 'text_delta', text: held + text });
  }

  /** Writes one content part now: no other tool block is open (or the part belongs to it). */
  function write(part: CanonicalStreamPart): string {
    // Any other block ends the text run: whitespace it held was all the run had.
    if (part.type !== 'text-delta') heldWhitespace = '';
    switch (part.type) {
      case 'text-delta':
        if (part.refusal === true) sawRefusal = true;
        return writeText(part.text);
      case 'reasoning-delta':
        return part.text === '' ? '' : ensureBlock('thinking') + delta({ type: 'thinking_delta', thinking: part.text });
      case 'reasoning-signature':
        // The signature closes its thinking block (Anthropic sends it last); alone, it gets an empty one.
        return ensureBlock('thinking') + delta({ type: 'signature_delta', signature: formatAnthropicThinkingSignature(part.signature, part.issuer) }) + closeBlock();
      case 'reasoning-redacted':
        return openBlock({ kind: 'thinking', index: nextBlockIndex++ }, { type: 'redacted_thinking', data: formatAnthropicRedactedData(part.data, part.issuer) }) + closeBlock();
      case 'tool-call-start': {
        if (startedToolCalls.has(part.index)) {
          warn(`tool call ${part.index} started twice: the second start was dropped`);
          return '';
        }
        sawToolCall = true;
        const id = part.id === '' ? context.newId('toolu_') : part.id;
        startedToolCalls.add(part.index);
        return openBlock({ kind: 'tool', index: nextBlockIndex++, toolIndex: part.index }, { type: 'tool_use', id, name: part.name, input: {} });
      }
      case 'tool-call-delta':
        if (part.index !== openToolIndex()) {
          warn(`arguments for tool call ${part.index}, which is not open, were dropped`);
          return '';
        }
        return part.argumentsDelta === '' ? '' : delta({ type: 'input_json_delta', partial_json: part.argumentsDelta });
      case 'tool-call-end':
        return part.index === openToolIndex() ? closeBlock() : '';
      default:
        throw new Error(`not a content part: ${part.type}`);
    }
  }

  /** Writes the waiting parts that can go now: all of them once no tool block is open, else those of the open tool. */
  function drain(): string {
    let text = '';
    for (;;) {
      const toolIndex = openToolIndex();
      const position = toolIndex === undefined ? (waiting.length > 0 ? 0 : -1) : waiting.findIndex(belongsToOpenTool);
      if (position < 0) return text;
      const [part] = waiting.splice(position, 1);
      if (part !== undefined) text += write(part);
    }
  }

  function accept(part: CanonicalStreamPart): string {
    if (open?.kind === 'tool' && !belongsToOpenTool(part)) {
      waiting.push(part);
      return '';
    }
    return write(part) + drain();
  }

  /** Closes every block: a tool call that never ended is closed as it stands, and what waited behind it written. */
  function closeEverything(): string {
    let text = drain();
    while (open !== undefined) {
      if (open.kind === 'tool') warn(`tool call ${open.toolIndex} never ended: closed at the end of the stream`);
      text += closeBlock() + drain();
    }
    waiting = [];
    return text;
  }

  function finish(part: Extract<CanonicalStreamPart, { type: 'finish' }>): string {
    let text = closeEverything();
    finished = true;
    const stopReason = formatAnthropicStopReason(finishReasonOfTurn(part.finishReason, { toolCalls: sawToolCall, refusal: sawRefusal }));
    stopReason.warnings.forEach(warn);
    const usage = part.usage ?? latestUsage;
    if (usage === undefined) warn('the stream carried no usage: message_delta reports zeros');
    const wireUsage = formatAnthropicMessagesUsage(usage ?? { input: { total: 0, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } });
    text += event('message_delta', { delta: { stop_reason: stopReason.value, stop_sequence: null }, usage: wireUsage });
    return text;
  }

  function encode(part: CanonicalStreamPart): string {
    // For billing (or the gateway's memory) only: nothing to write, nor to open the message for.
    if (part.type === 'input-usage' || part.type === 'web-searches' || part.type === 'uncarried-output' || part.type === 'output-item') return '';
    if (finished || failed) {
      warn(`a ${part.type} part after the end of the message was dropped`);
      return '';
    }
    if (part.type === 'start') {
      if (started) warn('a second start part was ignored');
      return started ? '' : messageStart();
    }
    let text = '';
    if (!started) {
      warn(`the stream began with ${part.type}, not start`);
      text += messageStart();
    }
    switch (part.type) {
      case 'usage':
        latestUsage = part.usage;
        return text;
      case 'finish':
        return text + finish(part);
      case 'error':
        // Anthropic ends a failed stream with an error event and nothing after it.
        failed = true;
        return text + encodeAnthropicMessagesStreamError(part.message, part.code);
      case 'text-delta':
      case 'reasoning-delta':
      case 'reasoning-signature':
      case 'reasoning-redacted':
      case 'tool-call-start':
      case 'tool-call-delta':
      case 'tool-call-end':
        return text + accept(part);
      default: {
        const unhandled: never = part;
        throw new Error(`unhandled part ${JSON.stringify(unhandled)}`);
      }
    }
  }

  return {
    encode,
    end() {
      if (failed) return '';
      if (finished) return event('message_stop', {});
      // Ended before finish: say so with an error event, so that no client takes a cut answer for a whole one.
      warn('the stream ended before finish: an error event was sent');
      failed = true;
      return (started ? '' : messageStart()) + event('error', { error: { type: 'api_error', message: 'The upstream stream ended before the message was complete.' } });
    },
    get warnings() {
      return warnings;
    },
  };
}

/**
 * A mid-stream error as Anthropic writes one: an `error` event, nothing after it. Its type is Anthropic's
 * word for the error's kind (read-error-kind.ts): another vendor's code (Google's `UNAVAILABLE`, OpenAI's
 * `rate_limit_exceeded`) becomes the type an Anthropic client retries or backs off on; the message is the upstream's.
 */
export function encodeAnthropicMessagesStreamError(message: string, code: string | undefined): string {
  const type = mapErrorKind(readErrorKind(code)).anthropic;
  return encodeSseEvent(JSON.stringify({ type: 'error', error: { type, message } }), 'error');
}
