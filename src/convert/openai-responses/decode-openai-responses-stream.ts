import type { StreamDecoder } from '../../canonical/conversion.js';
import { withServiceTier } from '../../billing/normalized-usage.js';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import type { SseEvent } from '../../streaming/decode-sse.js';
import { mapOpenaiResponsesFinishReason } from './map-openai-responses-finish-reason.js';
import { parseOpenaiResponsesEncryptedContent } from './map-openai-responses-encrypted-content.js';
import {
  openaiResponsesCustomToolCallItemSchema,
  openaiResponsesFunctionCallItemSchema,
  openaiResponsesMessageItemSchema,
  openaiResponsesReasoningItemSchema,
  openaiResponsesStreamEventSchema,
  type OpenaiResponsesObject,
  type OpenaiResponsesStreamEvent,
  type OpenaiResponsesTypedObject,
} from './openai-responses-wire-schema.js';
import { readOpenaiResponsesReasoningText } from './parse-openai-responses-output-item.js';
import { countWebSearchCalls, readOpenaiResponsesUsage, withWebSearches } from './read-openai-responses-usage.js';
import { toReasoningStreamPart } from '../shared/map-opaque-reasoning.js';

/** What each output item (by `output_index`) has produced so far. */
type OutputState =
  | { kind: 'message'; sawText: boolean }
  | { kind: 'reasoning'; sawText: boolean; encryptedContent: string | undefined }
  | { kind: 'tool'; toolIndex: number; custom: boolean; sent: string; ended: boolean }
  | { kind: 'dropped' };

/** A custom tool's free text travels as `{"input": …}` (see wrapCustomToolInput): fragments are escaped as they come. */
const customInputOpening = '{"input":"';
const customInputClosing = '"}';
const escapeJsonFragment = (text: string): string => JSON.stringify(text).slice(1, -1);

/** A function or custom tool call item: its call id, name and the arguments (or custom input) it carries. */
function readToolItem(item: OpenaiResponsesTypedObject): { id: string; name: string; text: string; custom: boolean } | undefined {
  if (item.type === 'function_call') {
    const call = openaiResponsesFunctionCallItemSchema.safeParse(item);
    return call.success ? { id: call.data.call_id, name: call.data.name, text: call.data.arguments, custom: false } : undefined;
  }
  if (item.type === 'custom_tool_call') {
    const call = openaiResponsesCustomToolCallItemSchema.safeParse(item);
    return call.success ? { id: call.data.call_id, name: call.data.name, text: call.data.input, custom: true } : undefined;
  }
  return undefined;
}

/**
 * Upstream Responses SSE events (protocols.md §8) → canonical parts, each event as it arrives. Output items map
 * by type: `message` → text-delta, `reasoning` → reasoning-delta (summary and reasoning text, parts joined by a
 * blank line) then its `encrypted_content` at `output_item.done`, `function_call` → tool-call-start/-delta/-end
 * with tool indexes counted from 0. `response.completed` / `.incomplete` / `.failed` give usage and the finish.
 */
export function createOpenaiResponsesStreamDecoder(): StreamDecoder {
  const warnings: string[] = [];
  const warn = (message: string): void => {
    if (!warnings.includes(message)) warnings.push(message);
  };
  const outputs = new Map<number, OutputState>();
  let started = false;
  let finished = false;
  /** `web_search_call` items finished so far (each one search the upstream bills). */
  let searchesSeen = 0;
  /** response.completed / .incomplete / .failed, or an error event, came. */
  let terminal = false;
  let toolCount = 0;
  let error: { message: string; code?: string } | undefined;

  function start(parts: CanonicalStreamPart[], response: OpenaiResponsesObject | undefined): void {
    if (started) return;
    started = true;
    if (response === undefined) warn('the stream had no response.created');
    const tier = response?.service_tier;
    parts.push({ type: 'start', id: response?.id ?? '', model: response?.model ?? '', created: response?.created_at ?? 0, ...(typeof tier === 'string' ? { serviceTier: tier } : {}) });
  }

  function sendArguments(state: Extract<OutputState, { kind: 'tool' }>, complete: string | undefined, parts: CanonicalStreamPart[]): void {
    if (complete === undefined || complete === state.sent) return;
    if (!complete.startsWith(state.sent)) {
      warn(`tool call ${state.toolIndex}: the final arguments differ from the streamed ones; the streamed ones are kept`);
      return;
    }
    const rest = complete.slice(state.sent.length);
    state.sent = complete;
    parts.push({ type: 'tool-call-delta', index: state.toolIndex, argumentsDelta: state.custom ? escapeJsonFragment(rest) : rest });
  }

  function endTool(state: Extract<OutputState, { kind: 'tool' }>, parts: CanonicalStreamPart[]): void {
    if (state.ended) return;
    state.ended = true;
    if (state.custom) parts.push({ type: 'tool-call-delta', index: state.toolIndex, argumentsDelta: customInputClosing });
    // A call that takes no arguments ("" from some compatible servers) takes {}, as OpenAI sends it.
    else if (state.sent === '') parts.push({ type: 'tool-call-delta', index: state.toolIndex, argumentsDelta: '{}' });
    parts.push({ type: 'tool-call-end', index: state.toolIndex });
  }

  function addItem(event: OpenaiResponsesStreamEvent, outputIndex: number, parts: CanonicalStreamPart[]): void {
    const item = event.item;
    if (item === undefined) return;
    if (typeof item.id === 'string' && item.id !== '') parts.push({ type: 'output-item', id: item.id });
    const tool = readToolItem(item);
    if (tool !== undefined) {
      const state = { kind: 'tool' as const, toolIndex: toolCount++, custom: tool.custom, sent: '', ended: false };
      outputs.set(outputIndex, state);
      parts.push({ type: 'tool-call-start', index: state.toolIndex, id: tool.id, name: tool.name });
      if (state.custom) {
        warn(`custom tool call ${JSON.stringify(tool.name)} carried as a function call with arguments {"input": …}`);
        parts.push({ type: 'tool-call-delta', index: state.toolIndex, argumentsDelta: customInputOpening });
      }
      sendArguments(state, tool.text, parts);
      return;
    }
    if (item.type === 'message') outputs.set(outputIndex, { kind: 'message', sawText: false });
    else if (item.type === 'reasoning') {
      const encrypted = typeof item.encrypted_content === 'string' && item.encrypted_content !== '' ? item.encrypted_content : undefined;
      outputs.set(outputIndex, { kind: 'reasoning', sawText: false, encryptedContent: encrypted });
    } else {
      warn(`a ${JSON.stringify(item.type)} output item cannot be carried to other API styles; dropped`);
      outputs.set(outputIndex, { kind: 'dropped' });
    }
  }

  function finishItem(event: OpenaiResponsesStreamEvent, state: OutputState, parts: CanonicalStreamPart[]): void {
    const item = event.item;
    switch (state.kind) {
      case 'tool':
        sendArguments(state, item === undefined ? undefined : readToolItem(item)?.text, parts);
        endTool(state, parts);
        return;
      case 'message': {
        // Deltas carry the text; a vendor that sends only whole items is read here.
        const message = openaiResponsesMessageItemSchema.safeParse(item);
        if (state.sawText || !message.success || typeof message.data.content === 'string') return;
        for (const part of message.data.content) {
          if (part.type === 'output_text' && typeof part.text === 'string' && part.text !== '') parts.push({ type: 'text-delta', text: part.text });
          if (part.type === 'refusal' && typeof part.refusal === 'string' && part.refusal !== '') parts.push({ type: 'text-delta', text: part.refusal, refusal: true });
        }
        return;
      }
      case 'reasoning': {
        const reasoning = openaiResponsesReasoningItemSchema.safeParse(item);
        const text = reasoning.success ? readOpenaiResponsesReasoningText(reasoning.data) : '';
        if (!state.sawText && text !== '') parts.push({ type: 'reasoning-delta', text });
        const encrypted = (reasoning.success ? reasoning.data.encrypted_content : undefined) ?? state.encryptedContent;
        if (encrypted == null || encrypted === '') return;
        parts.push(toReasoningStreamPart(parseOpenaiResponsesEncryptedContent(encrypted)));
        return;
      }
      case 'dropped':
        return;
      default: {
        const unhandled: never = state;
        throw new Error(`unhandled output state ${JSON.stringify(unhandled)}`);
      }
    }
  }

  function finish(response: OpenaiResponsesObject | undefined, parts: CanonicalStreamPart[]): void {
    finished = true;
    // A compatible server that streams only the lifecycle events has its answer in the final object alone.
    if (outputs.size === 0) {
      for (const [index, item] of (response?.output ?? []).entries()) {
        const event = { type: 'response.output_item.done', output_index: index, item };
        addItem(event, index, parts);
        const state = outputs.get(index);
        if (state !== undefined) finishItem(event, state, parts);
      }
    }
    for (const state of outputs.values()) {
      if (state.kind === 'tool' && !state.ended) {
        warn(`tool call ${state.toolIndex} was never closed by the upstream`);
        endTool(state, parts);
      }
    }
    // A failed response repeats the error of a preceding `error` event: one error part is enough.
    if (response?.error?.message != null && response.error.message !== error?.message) {
      error = { message: response.error.message, ...(response.error.code == null ? {} : { code: response.error.code }) };
      parts.push({ type: 'error', ...error });
    }
    // Each web search is billed on top of the tokens: counted from the final object, else from the items seen.
    const searches = Math.max(countWebSearchCalls(response?.output), searchesSeen);
    const read = readOpenaiResponsesUsage(response?.usage);
    const usage = read === undefined ? undefined : withServiceTier(withWebSearches(read, searches), response?.service_tier);
    if (usage !== undefined) parts.push({ type: 'usage', usage });
    else warn('the upstream reported no usage');
    // Without usage the answer is counted locally: with the final object's searches the items did not show.
    if (usage === undefined && searches > searchesSeen) parts.push({ type: 'web-searches', count: searches });
    const finishReason =
      response === undefined
        ? { unified: error === undefined ? ('other' as const) : ('error' as const), raw: undefined }
        : mapOpenaiResponsesFinishReason(response.status, response.incomplete_details?.reason, toolCount > 0);
    parts.push({ type: 'finish', finishReason, usage });
  }

  function handle(event: OpenaiResponsesStreamEvent, parts: CanonicalStreamPart[]): void {
    if (event.type === 'response.created' || event.type === 'response.queued' || event.type === 'response.in_progress') {
      start(parts, event.response);
      return;
    }
    start(parts, undefined);
    const outputIndex = event.output_index ?? -1;
    const state = outputs.get(outputIndex);
    const delta = event.delta ?? '';
    switch (event.type) {
      case 'response.output_item.added':
        addItem(event, outputIndex, parts);
        return;
      case 'response.output_item.done': {
        // Billed the moment it ran (OpenAI bills each search): told at once, for a stream cut before its end.
        if (event.item?.type === 'web_search_call') parts.push({ type: 'web-searches', count: (searchesSeen += 1) });
        // Some compatible servers send only the finished item.
        if (state === undefined) addItem(event, outputIndex, parts);
        const current = outputs.get(outputIndex);
        if (current !== undefined) finishItem(event, current, parts);
        return;
      }
      case 'response.refusal.delta':
      case 'response.output_text.delta':
        if (state?.kind === 'message') state.sawText = true;
        if (delta !== '') parts.push(event.type === 'response.refusal.delta' ? { type: 'text-delta', text: delta, refusal: true } : { type: 'text-delta', text: delta });
        return;
      case 'response.output_text.annotation.added':
        warn('output text annotations (citations) are not carried');
        return;
      case 'response.reasoning_summary_part.added':
      case 'response.content_part.added':
        // A new summary or reasoning-text part of a reasoning item: separate it from the previous one.
        if (state?.kind === 'reasoning' && state.sawText) parts.push({ type: 'reasoning-delta', text: '\n\n' });
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (state?.kind === 'reasoning') state.sawText = true;
        if (delta !== '') parts.push({ type: 'reasoning-delta', text: delta });
        return;
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        if (state?.kind !== 'tool' || delta === '') return;
        state.sent += delta;
        parts.push({ type: 'tool-call-delta', index: state.toolIndex, argumentsDelta: state.custom ? escapeJsonFragment(delta) : delta });
        return;
      case 'response.function_call_arguments.done':
      case 'response.custom_tool_call_input.done':
        if (state?.kind === 'tool') sendArguments(state, event.arguments ?? event.input, parts);
        return;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        terminal = true;
        finish(event.response, parts);
        return;
      case 'error':
        terminal = true;
        error = { message: event.message ?? 'the upstream reported an error', ...(event.code == null ? {} : { code: event.code }) };
        parts.push({ type: 'error', ...error });
        return;
      default:
        // content_part.*, *.done, hosted tool progress, keepalive: nothing canonical in them.
        return;
    }
  }

  return {
    warnings,
    push(sse: SseEvent): CanonicalStreamPart[] {
      if (finished) return [];
      const parts: CanonicalStreamPart[] = [];
      let json: unknown;
      try {
        json = JSON.parse(sse.data);
      } catch {
        warn('an upstream event is not JSON; skipped');
        return parts;
      }
      const event = openaiResponsesStreamEventSchema.safeParse(json);
      if (!event.success) {
        warn(`an upstream event has no readable type; skipped`);
        return parts;
      }
      handle(event.data, parts);
      return parts;
    },
    end(): CanonicalStreamPart[] {
      if (finished) return [];
      const parts: CanonicalStreamPart[] = [];
      start(parts, undefined);
      warn('the upstream stream ended without response.completed');
      finish(undefined, parts);
      return parts;
    },
    get complete() {
      return terminal;
    },
  };
}
