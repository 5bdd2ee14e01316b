/**
 * One logical answer rendered as each text vendor sends it (shapes from shared/reference/recorded), as
 * `ScriptedReply`s for `startScriptedUpstream`: OpenAI Chat Completions, OpenAI Responses, Anthropic
 * Messages and Gemini, streamed or whole, plus each vendor's error bodies and in-band stream errors.
 * Usage is given once, in one meaning, and converted to each vendor's: `input` counts every prompt
 * token (cache reads and writes included), `output` every produced token (reasoning included).
 */
import type { ScriptedReply, RecordedRequest, SseEvent } from './scripted-upstream.js';

export type WireStyle = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini';
export const wireStyles: WireStyle[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'];

export interface WireUsage {
  /** All prompt tokens, cache reads and writes included. */
  input: number;
  cacheRead?: number;
  /** Anthropic's cache_creation_input_tokens; OpenRouter's prompt_tokens_details.cache_write_tokens on Chat. */
  cacheWrite?: number;
  /** Anthropic: the part of `cacheWrite` written to the 1-hour cache (`cache_creation.ephemeral_1h_input_tokens`). */
  cacheWrite1h?: number;
  /** All produced tokens, reasoning included. */
  output: number;
  reasoning?: number;
  /** Chat and Gemini: of the uncached input, the audio tokens (`prompt_tokens_details.audio_tokens`; an `AUDIO` entry of `promptTokensDetails`). */
  audioIn?: number;
  /** Chat and Gemini: of the output, the audio tokens (`completion_tokens_details.audio_tokens`; an `AUDIO` entry of `candidatesTokensDetails`). */
  audioOut?: number;
  /** Chat, Responses and Gemini: of the uncached input, the image tokens (`prompt_tokens_details.image_tokens`; `input_tokens_details.image_tokens`; an `IMAGE` entry of `promptTokensDetails`). */
  imageIn?: number;
  /** Chat (OpenRouter), Responses and Gemini: of the output, the image tokens (`completion_tokens_details.image_tokens`; `output_tokens_details.image_tokens`; an `IMAGE` entry of `candidatesTokensDetails`). */
  imageOut?: number;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the vendor streams them: JSON text (`''` for a call that takes none). */
  args: string;
}

export interface Answer {
  id?: string;
  thinking?: { text: string; signature: string };
  /** A string is streamed in short fragments; an array is streamed as exactly those pieces. */
  text?: string | string[];
  tools?: ToolCall[];
  /** `stop` unless set. */
  stop?: 'stop' | 'tool' | 'length' | 'stop_sequence';
  stopSequence?: string;
  /** The final usage report; left out, the upstream reports none (Anthropic's message_start aside). */
  usage?: WireUsage;
  /** Gemini: the thought signature on the first functionCall (Gemini 3) instead of the closing empty part. */
  geminiSignatureOnCall?: boolean;
  /** Gemini: functionCall ids (Gemini 3 sends them). */
  geminiCallIds?: boolean;
}

export interface StreamOptions {
  /**
   * `false`: the stream stops right after its last content delta, before its final events (finish chunk,
   * usage chunk and `[DONE]`; `content_block_stop`, `message_delta`, `message_stop`; the `.done` events
   * and `response.completed`; Gemini's closing chunk with `finishReason`). The reply's `ending` says how
   * the body then ends. `true` unless set.
   */
  terminal?: boolean;
  /** Anthropic: the usage `message_start` reports (its input side, `output_tokens: 1`); `usage` unless set. */
  startUsage?: WireUsage;
  /** Gemini: the cumulative usage carried by content chunk `index`; none unless set (the closing chunk carries `usage`). */
  usageAt?: (index: number) => WireUsage | undefined;
}

/** Splits text into `size`-character fragments (how deltas arrive). */
export function fragments(text: string, size = 3): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const created = 1760000000;
const pieces = (text: string | string[], size: number): string[] => (typeof text === 'string' ? fragments(text, size) : text);
const whole = (text: string | string[]): string => (typeof text === 'string' ? text : text.join(''));
const json = (body: unknown, status = 200): ScriptedReply => ({ status, json: body });

/** Drops what follows the last event `isContent` accepts (StreamOptions.terminal false). */
function cutAfterContent(events: SseEvent[], terminal: boolean | undefined, isContent: (event: SseEvent) => boolean): SseEvent[] {
  if (terminal !== false) return events;
  let last = -1;
  events.forEach((event, index) => {
    if (isContent(event)) last = index;
  });
  return events.slice(0, last + 1);
}

// ---------- OpenAI Chat Completions ----------

function chatFinish(answer: Answer): string {
  return answer.stop === 'tool' ? 'tool_calls' : answer.stop === 'length' ? 'length' : 'stop';
}

function chatUsage(u: WireUsage) {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0, audio_tokens: u.audioIn ?? 0, ...(u.cacheWrite ? { cache_write_tokens: u.cacheWrite } : {}), ...(u.imageIn ? { image_tokens: u.imageIn } : {}) },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning ?? 0, audio_tokens: u.audioOut ?? 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0, ...(u.imageOut ? { image_tokens: u.imageOut } : {}),
    },
  };
}

/** Role chunk, reasoning_content / content / tool_call fragments, finish chunk, usage-only chunk (when usage), `[DONE]`. */
export function chatStream(answer: Answer, options: StreamOptions = {}): ScriptedReply {
  const base = { id: answer.id ?? 'chatcmpl-up1', object: 'chat.completion.chunk', created, model: 'gpt-4o-mini-2024-07-18', service_tier: 'default', system_fingerprint: 'fp_1' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseEvent => ({ data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null } });
  const events: SseEvent[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  if (answer.thinking !== undefined) for (const piece of fragments(answer.thinking.text, 5)) events.push(chunk({ reasoning_content: piece }));
  if (answer.text !== undefined) for (const piece of pieces(answer.text, 4)) events.push(chunk({ content: piece }));
  for (const [index, tool] of (answer.tools ?? []).entries()) {
    events.push(chunk({ tool_calls: [{ index, id: tool.id, type: 'function', function: { name: tool.name, arguments: '' } }] }));
    for (const piece of fragments(tool.args, 3)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  events.push(chunk({}, chatFinish(answer)));
  if (answer.usage !== undefined) events.push({ data: { ...base, choices: [], usage: chatUsage(answer.usage) } });
  events.push({ data: '[DONE]' });
  return { sse: cutAfterContent(events, options.terminal, (event) => Object.keys((event.data as any)?.choices?.[0]?.delta ?? {}).length > 0) };
}

export function chatWhole(answer: Answer): ScriptedReply {
  const message: Record<string, unknown> = { role: 'assistant', content: answer.text === undefined ? null : whole(answer.text), refusal: null, annotations: [] };
  if (answer.thinking !== undefined) message.reasoning_content = answer.thinking.text;
  if (answer.tools !== undefined) message.tool_calls = answer.tools.map((tool) => ({ id: tool.id, type: 'function', function: { name: tool.name, arguments: tool.args } }));
  return json({
    id: answer.id ?? 'chatcmpl-up1', object: 'chat.completion', created, model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message, logprobs: null, finish_reason: chatFinish(answer) }],
    ...(answer.usage === undefined ? {} : { usage: chatUsage(answer.usage) }),
  });
}

// ---------- Anthropic Messages ----------

function anthropicStop(answer: Answer): string {
  return answer.stop === 'tool' ? 'tool_use' : answer.stop === 'length' ? 'max_tokens' : answer.stop === 'stop_sequence' ? 'stop_sequence' : 'end_turn';
}

/**
 * Anthropic's input_tokens leaves cache reads and writes out. message_start and whole messages also split
 * the writes by cache lifetime (`cache_creation`); message_delta does not (shared/reference/recorded).
 */
function anthropicUsage(u: WireUsage, output: number, place: 'start' | 'delta' | 'whole') {
  const counts = { input_tokens: u.input - (u.cacheRead ?? 0) - (u.cacheWrite ?? 0), cache_creation_input_tokens: u.cacheWrite ?? 0, cache_read_input_tokens: u.cacheRead ?? 0 };
  if (place === 'delta') return { ...counts, output_tokens: output };
  const oneHour = u.cacheWrite1h ?? 0;
  return { ...counts, cache_creation: { ephemeral_5m_input_tokens: (u.cacheWrite ?? 0) - oneHour, ephemeral_1h_input_tokens: oneHour }, output_tokens: output };
}

/** message_start (interim usage, output_tokens 1), thinking / text / tool_use blocks, message_delta (stop reason, final usage), message_stop. */
export function anthropicStream(answer: Answer, options: StreamOptions = {}): ScriptedReply {
  const events: SseEvent[] = [];
  const ev = (data: Record<string, unknown>) => events.push({ event: String(data.type), data });
  const start = options.startUsage ?? answer.usage;
  ev({
    type: 'message_start',
    message: { model: 'claude-sonnet-4-5-20250929', id: answer.id ?? 'msg_up1', type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null, usage: start === undefined ? { input_tokens: 0, output_tokens: 0 } : anthropicUsage(start, 1, 'start') },
  });
  let index = 0;
  if (answer.thinking !== undefined) {
    ev({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    ev({ type: 'ping' });
    for (const piece of fragments(answer.thinking.text, 5)) ev({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
    ev({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: answer.thinking.signature } });
    ev({ type: 'content_block_stop', index });
    index++;
  }
  if (answer.text !== undefined) {
    ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const piece of pieces(answer.text, 4)) ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    ev({ type: 'content_block_stop', index });
    index++;
  }
  for (const tool of answer.tools ?? []) {
    ev({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} } });
    ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const piece of fragments(tool.args, 3)) ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    ev({ type: 'content_block_stop', index });
    index++;
  }
  ev({
    type: 'message_delta',
    delta: { stop_reason: anthropicStop(answer), stop_sequence: answer.stopSequence ?? null },
    ...(answer.usage === undefined ? {} : { usage: anthropicUsage(answer.usage, answer.usage.output, 'delta') }),
  });
  ev({ type: 'message_stop' });
  return { sse: cutAfterContent(events, options.terminal, (event) => event.event === 'content_block_delta') };
}

export function anthropicWhole(answer: Answer): ScriptedReply {
  const content: Record<string, unknown>[] = [];
  if (answer.thinking !== undefined) content.push({ type: 'thinking', thinking: answer.thinking.text, signature: answer.thinking.signature });
  if (answer.text !== undefined) content.push({ type: 'text', text: whole(answer.text) });
  for (const tool of answer.tools ?? []) content.push({ type: 'tool_use', id: tool.id, name: tool.name, input: tool.args === '' ? {} : JSON.parse(tool.args) });
  return json({
    model: 'claude-sonnet-4-5-20250929', id: answer.id ?? 'msg_up1', type: 'message', role: 'assistant', content,
    stop_reason: anthropicStop(answer), stop_sequence: answer.stopSequence ?? null, usage: anthropicUsage(answer.usage ?? { input: 0, output: 0 }, answer.usage?.output ?? 0, 'whole'),
  });
}

// ---------- Gemini (streamGenerateContent?alt=sse: the gateway always streams from Gemini) ----------

/** Gemini's promptTokenCount includes cached tokens; candidatesTokenCount leaves thoughts out. */
function geminiUsage(u: WireUsage) {
  const reasoning = u.reasoning ?? 0;
  return {
    promptTokenCount: u.input,
    candidatesTokenCount: u.output - reasoning,
    totalTokenCount: u.input + u.output,
    ...(u.cacheRead ? { cachedContentTokenCount: u.cacheRead } : {}),
    promptTokensDetails: modalities(u.input, u.audioIn, u.imageIn),
    ...(u.audioOut || u.imageOut ? { candidatesTokensDetails: modalities(u.output - reasoning, u.audioOut, u.imageOut) } : {}),
    ...(reasoning > 0 ? { thoughtsTokenCount: reasoning } : {}),
  };
}

/** A `ModalityTokenCount` list: the text, then the audio and image entries there are. */
function modalities(total: number, audio = 0, image = 0) {
  return [
    { modality: 'TEXT', tokenCount: total - audio - image },
    ...(audio ? [{ modality: 'AUDIO', tokenCount: audio }] : []),
    ...(image ? [{ modality: 'IMAGE', tokenCount: image }] : []),
  ];
}

/** One response per thought / text fragment, the function calls in one, then a closing empty-text response with finishReason and usage; `\r\n` framing. */
export function geminiStream(answer: Answer, options: StreamOptions = {}): ScriptedReply {
  const responseId = answer.id ?? 'gemRespId1';
  const frame = (parts: Record<string, unknown>[], usage: WireUsage | undefined, finish?: string): SseEvent => ({
    data: {
      candidates: [{ content: { parts, role: 'model' }, ...(finish === undefined ? {} : { finishReason: finish }), index: 0 }],
      ...(usage === undefined ? {} : { usageMetadata: geminiUsage(usage) }),
      modelVersion: 'gemini-2.5-flash',
      responseId,
    },
  });
  const content: Record<string, unknown>[][] = [];
  if (answer.thinking !== undefined) for (const piece of fragments(answer.thinking.text, 8)) content.push([{ text: piece, thought: true }]);
  if (answer.text !== undefined) for (const piece of pieces(answer.text, 6)) content.push([{ text: piece }]);
  if (answer.tools !== undefined) {
    content.push(answer.tools.map((tool, i) => ({
      functionCall: { ...(answer.geminiCallIds === true ? { id: tool.id } : {}), name: tool.name, args: tool.args === '' ? {} : JSON.parse(tool.args) },
      ...(i === 0 && answer.geminiSignatureOnCall === true && answer.thinking !== undefined ? { thoughtSignature: answer.thinking.signature } : {}),
    })));
  }
  const events = content.map((parts, index) => frame(parts, options.usageAt?.(index)));
  if (options.terminal !== false) {
    const closing: Record<string, unknown> = { text: '' };
    if (answer.thinking !== undefined && answer.geminiSignatureOnCall !== true) closing.thoughtSignature = answer.thinking.signature;
    events.push(frame([closing], answer.usage, answer.stop === 'length' ? 'MAX_TOKENS' : 'STOP'));
  }
  return { sse: events, crlf: true };
}

// ---------- OpenAI Responses ----------

function responsesUsage(u: WireUsage) {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cacheRead ?? 0, ...(u.imageIn ? { image_tokens: u.imageIn } : {}) },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0, ...(u.imageOut ? { image_tokens: u.imageOut } : {}) },
    total_tokens: u.input + u.output,
  };
}

function responsesOutput(answer: Answer): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (answer.thinking !== undefined) out.push({ id: 'rs_up1', type: 'reasoning', summary: [{ type: 'summary_text', text: answer.thinking.text }], encrypted_content: answer.thinking.signature });
  if (answer.text !== undefined) {
    out.push({ id: 'msg_up1', type: 'message', status: answer.stop === 'length' ? 'incomplete' : 'completed', content: [{ type: 'output_text', annotations: [], logprobs: [], text: whole(answer.text) }], role: 'assistant' });
  }
  for (const [i, tool] of (answer.tools ?? []).entries()) out.push({ id: `fc_up${i}`, type: 'function_call', status: 'completed', arguments: tool.args, call_id: tool.id, name: tool.name });
  return out;
}

function responsesObject(answer: Answer, final: boolean): Record<string, unknown> {
  const incomplete = answer.stop === 'length';
  return {
    id: answer.id ?? 'resp_up1', object: 'response', created_at: created, status: final ? (incomplete ? 'incomplete' : 'completed') : 'in_progress', background: false, error: null,
    incomplete_details: final && incomplete ? { reason: 'max_output_tokens' } : null, instructions: null, max_output_tokens: null, model: 'gpt-5-mini-2025-08-07',
    output: final ? responsesOutput(answer) : [], parallel_tool_calls: true, previous_response_id: null, reasoning: { effort: 'low', summary: null }, store: false, temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' }, tool_choice: 'auto', tools: [], top_p: 1, truncation: 'disabled',
    usage: final && answer.usage !== undefined ? responsesUsage(answer.usage) : null, user: null, metadata: {},
  };
}

/** response.created / in_progress, per output item its added → deltas → done events, then response.completed (response.incomplete for `length`). */
export function responsesStream(answer: Answer, options: StreamOptions = {}): ScriptedReply {
  const events: SseEvent[] = [];
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) => events.push({ event: type, data: { type, sequence_number: seq++, ...data } });
  ev('response.created', { response: responsesObject(answer, false) });
  ev('response.in_progress', { response: responsesObject(answer, false) });
  for (const [outputIndex, item] of responsesOutput(answer).entries()) {
    const at = { item_id: item.id, output_index: outputIndex };
    if (item.type === 'reasoning') {
      const text = answer.thinking!.text;
      ev('response.output_item.added', { output_index: outputIndex, item: { id: item.id, type: 'reasoning', summary: [] } });
      ev('response.reasoning_summary_part.added', { ...at, summary_index: 0, part: { type: 'summary_text', text: '' } });
      for (const piece of fragments(text, 5)) ev('response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta: piece });
      ev('response.reasoning_summary_text.done', { ...at, summary_index: 0, text });
      ev('response.reasoning_summary_part.done', { ...at, summary_index: 0, part: { type: 'summary_text', text } });
      ev('response.output_item.done', { output_index: outputIndex, item });
    } else if (item.type === 'message') {
      const text = whole(answer.text!);
      ev('response.output_item.added', { output_index: outputIndex, item: { id: item.id, type: 'message', status: 'in_progress', content: [], role: 'assistant' } });
      ev('response.content_part.added', { ...at, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
      for (const piece of pieces(answer.text!, 4)) ev('response.output_text.delta', { ...at, content_index: 0, delta: piece, logprobs: [] });
      ev('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] });
      ev('response.content_part.done', { ...at, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text } });
      ev('response.output_item.done', { output_index: outputIndex, item });
    } else {
      ev('response.output_item.added', { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const piece of fragments(String(item.arguments), 3)) ev('response.function_call_arguments.delta', { ...at, delta: piece });
      ev('response.function_call_arguments.done', { ...at, arguments: item.arguments });
      ev('response.output_item.done', { output_index: outputIndex, item });
    }
  }
  ev(answer.stop === 'length' ? 'response.incomplete' : 'response.completed', { response: responsesObject(answer, true) });
  return { sse: cutAfterContent(events, options.terminal, (event) => String(event.event).endsWith('.delta')) };
}

export function responsesWhole(answer: Answer): ScriptedReply {
  return json(responsesObject(answer, true));
}

// ---------- Any style ----------

/** The reply of `style` to a request that did (`streamed`) or did not ask to stream; Gemini always streams. */
export function replyFor(style: WireStyle, answer: Answer, streamed: boolean, options: StreamOptions = {}): ScriptedReply {
  switch (style) {
    case 'openai-chat':
      return streamed ? chatStream(answer, options) : chatWhole(answer);
    case 'openai-responses':
      return streamed ? responsesStream(answer, options) : responsesWhole(answer);
    case 'anthropic':
      return streamed ? anthropicStream(answer, options) : anthropicWhole(answer);
    case 'gemini':
      return geminiStream(answer, options);
  }
}

/** A reply script that streams or not as the request's `stream` field asked (Gemini always streams). */
export function replyAsAsked(style: WireStyle, answer: Answer, options: StreamOptions = {}): (request: RecordedRequest) => ScriptedReply {
  return (request) => replyFor(style, answer, request.body?.stream === true, options);
}

/** The vendor's error body for an HTTP status (429 rate limit, 529 overloaded, 503 unavailable, else a server error). */
export function errorReply(style: WireStyle, status: number, message: string): ScriptedReply {
  switch (style) {
    case 'openai-chat':
    case 'openai-responses':
      return json({ error: { message, type: status === 429 ? 'requests' : 'server_error', param: null, code: status === 429 ? 'rate_limit_exceeded' : null } }, status);
    case 'anthropic': {
      const type = status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error';
      return json({ type: 'error', error: { type, message }, request_id: 'req_up1' }, status);
    }
    case 'gemini': {
      const code = status === 429 ? 'RESOURCE_EXHAUSTED' : status === 503 ? 'UNAVAILABLE' : 'INTERNAL';
      return json({ error: { code: status, message, status: code } }, status);
    }
  }
}

/** The event a vendor sends when it fails mid-stream after a 200 (an overload). */
export function streamErrorEvent(style: WireStyle, message: string): SseEvent {
  switch (style) {
    case 'openai-chat':
      return { data: { error: { message, type: 'server_error', param: null, code: null } } };
    case 'openai-responses':
      return { event: 'error', data: { type: 'error', sequence_number: 99, code: 'server_error', message, param: null } };
    case 'anthropic':
      return { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message } } };
    case 'gemini':
      return { data: { error: { code: 503, message, status: 'UNAVAILABLE' } } };
  }
}
