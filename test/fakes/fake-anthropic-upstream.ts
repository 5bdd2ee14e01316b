/**
 * A fake Anthropic Messages upstream on a real loopback socket, for end-to-end tests of the gateway.
 * It speaks Anthropic's wire format as recorded in /work/shared/reference/recorded/anthropic-messages
 * (compact JSON in Anthropic's key order, `event: <type>\ndata: {json}\n\n` framing with a `ping`,
 * `request-id` headers, `{"type":"error",…,"request_id"}` error bodies) and injects the same faults as
 * the OpenAI fake. Stream framing is written by hand on purpose: the fake must not share code with the
 * gateway's own SSE encoder it helps to test.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { startFakeServer, type FakeDialect, type FakeExchange, type FakeUpstream, type WireReply } from './fake-server.js';
import { sampleArguments, splitEvenly, truncateToWords } from './fake-reply-helpers.js';

export type { FakeFault, RecordedRequest } from './fake-server.js';

export interface FakeAnthropicOptions {
  reply: string;
  streamChunks: number;
  chunkDelayMs: number;
  inputTokens: number;
  /** Output tokens of a whole answer (a truncated one reports its word count instead). */
  outputTokens: number;
  cacheReadTokens: number;
  /** Reported as `cache_creation_input_tokens` and as the 5-minute ephemeral write. */
  cacheWriteTokens: number;
  /** Answer with a `thinking` block (with a signature) before the text or tool call. */
  thinking: boolean;
  /** Thinking tokens, added to `output_tokens` when `thinking` is on (Anthropic bills them as output). */
  reasoningTokens: number;
  /** Keys accepted in `x-api-key` or `Authorization: Bearer`; undefined accepts any request, with or without a key. */
  expectedKeys: string[] | undefined;
}

export type FakeAnthropicUpstream = FakeUpstream<FakeAnthropicOptions>;

const defaultOptions: FakeAnthropicOptions = {
  reply: 'Hello from the fake upstream!',
  streamChunks: 5,
  chunkDelayMs: 0,
  inputTokens: 17,
  outputTokens: 9,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  thinking: false,
  reasoningTokens: 12,
  expectedKeys: undefined,
};

type Json = Record<string, any>;
/** What a route answers: a JSON body, or the payloads of an SSE stream (each `event:` is its `type`). */
type Reply = { kind: 'json'; status: number; body: unknown } | { kind: 'stream'; payloads: Json[] };

interface Context {
  options: FakeAnthropicOptions;
  body: Json;
  /** Numbers the ids of this server's responses, so ids are stable from run to run. */
  sequence: number;
}

/** 2026-10-21 is what SDK 1.x sends; 2023-06-01 what older SDKs and most raw callers send. */
const knownVersions = ['2023-01-01', '2023-06-01', '2026-10-21'];
const samplingParameters = ['temperature', 'top_p', 'top_k'];

const thinkingText = 'The user greeted me. A short, friendly answer fits.';

export function startFakeAnthropicUpstream(initialOptions: Partial<FakeAnthropicOptions> = {}): Promise<FakeAnthropicUpstream> {
  return startFakeServer({ ...defaultOptions, ...initialOptions }, anthropicDialect);
}

const anthropicDialect: FakeDialect<FakeAnthropicOptions> = {
  answer(exchange) {
    const reply = answer(exchange);
    return reply.kind === 'json' ? formatJson(reply, exchange.sequence) : formatStream(reply.payloads, exchange);
  },
  answerStatusFault(fault, sequence) {
    const body = fault.body ?? defaultErrorBody(fault.status, sequence);
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return { headers: jsonHeaders(sequence, text), text };
  },
  answerInternalError(message, sequence) {
    return { headers: { 'content-type': 'application/json', 'request-id': requestId(sequence) }, text: JSON.stringify(errorBody('api_error', message, sequence)) };
  },
};

function answer({ request, recorded, parsed, options, sequence }: FakeExchange<FakeAnthropicOptions>): Reply {
  const authorizationError = checkApiKey(request.headers, options.expectedKeys, sequence);
  if (authorizationError !== undefined) return authorizationError;
  const version = request.headers['anthropic-version'];
  if (version === undefined) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required', sequence);
  if (typeof version !== 'string' || !knownVersions.includes(version)) return anthropicError(400, 'invalid_request_error', `anthropic-version: ${JSON.stringify(version)} is not a valid version`, sequence);

  const pathname = new URL(recorded.path, 'http://fake').pathname;
  const counting = pathname === '/v1/messages/count_tokens';
  if (recorded.method !== 'POST' || (pathname !== '/v1/messages' && !counting)) return anthropicError(404, 'not_found_error', 'Not Found', sequence);
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return anthropicError(400, 'invalid_request_error', 'There was an issue with your request body: it is not valid JSON.', sequence);
  }
  const body = parsed.value as Json;
  if (typeof body.model !== 'string' || body.model === '') return anthropicError(400, 'invalid_request_error', 'model: Field required', sequence);
  if (counting) return answerCount(body, options, sequence);
  if (typeof body.max_tokens !== 'number') return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required', sequence);
  if (!Array.isArray(body.messages)) return anthropicError(400, 'invalid_request_error', 'messages: Field required', sequence);
  // API version 2026-10-21 removed the sampling parameters: sending one is a 400, even at its default value.
  const removed = version === '2026-10-21' ? samplingParameters.find((name) => name in body) : undefined;
  if (removed !== undefined) return anthropicError(400, 'invalid_request_error', `${removed}: Extra inputs are not permitted`, sequence);
  // Anthropic takes `tools: []`, but not a tool choice beside no tools (`tools: []` or none at all), as quoted
  // by clients that drop it (anomalyco/opencode#38553; Bedrock relays the same words).
  if (body.tool_choice != null && !(Array.isArray(body.tools) && body.tools.length > 0)) {
    return anthropicError(400, 'invalid_request_error', 'tool_choice may only be specified while providing tools.', sequence);
  }
  const altered = findAlteredThinking(body.messages);
  if (altered !== undefined) return anthropicError(400, 'invalid_request_error', `${altered}: Invalid \`signature\` in \`thinking\` block`, sequence);
  return answerMessage({ options, sequence, body });
}

// ---- Token count ----

/**
 * `POST /v1/messages/count_tokens`: a Messages body without the output limit (`max_tokens` and `stream`
 * are refused as extra inputs, as Anthropic refuses them), answered `{"input_tokens": N}` with the
 * `inputTokens` option, the input a Messages call would report.
 */
function answerCount(body: Json, options: FakeAnthropicOptions, sequence: number): Reply {
  if (!Array.isArray(body.messages)) return anthropicError(400, 'invalid_request_error', 'messages: Field required', sequence);
  const extra = ['max_tokens', 'stream'].find((name) => name in body);
  if (extra !== undefined) return anthropicError(400, 'invalid_request_error', `${extra}: Extra inputs are not permitted`, sequence);
  return { kind: 'json', status: 200, body: { input_tokens: options.inputTokens } };
}

// ---- Messages ----

type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Json };

function answerMessage(context: Context): Reply {
  const { body, options, sequence } = context;
  const id = `msg_01FakeUpstream${String(sequence).padStart(10, '0')}`;
  const tool = selectToolToCall(body);
  const text = truncateToWords(options.reply, body.max_tokens);
  const stopReason = tool !== undefined ? 'tool_use' : text.truncated ? 'max_tokens' : 'end_turn';
  const outputTokens = (text.truncated && tool === undefined ? text.tokens : options.outputTokens) + (options.thinking ? options.reasoningTokens : 0);

  const blocks: Block[] = [];
  if (options.thinking) blocks.push({ type: 'thinking', thinking: thinkingText, signature: fakeSignature(sequence, thinkingText) });
  if (tool !== undefined) blocks.push({ type: 'tool_use', id: `toolu_01FakeUpstream${String(sequence).padStart(10, '0')}`, name: tool.name, input: tool.input });
  else blocks.push({ type: 'text', text: text.value });

  // Key order as recorded: model, id, type, role, content, stop_reason, stop_sequence, usage.
  const head = { model: body.model, id, type: 'message', role: 'assistant' };
  if (body.stream !== true) {
    return { kind: 'json', status: 200, body: { ...head, content: blocks, stop_reason: stopReason, stop_sequence: null, usage: fullUsage(options, outputTokens) } };
  }

  const payloads: Json[] = [{ type: 'message_start', message: { ...head, content: [], stop_reason: null, stop_sequence: null, usage: fullUsage(options, 1) } }];
  for (const [index, block] of blocks.entries()) {
    const delta = (value: Json): Json => ({ type: 'content_block_delta', index, delta: value });
    // Anthropic sends one `ping` early in the stream, after the first block opens (or its first empty delta).
    const ping = index === 0 ? [{ type: 'ping' }] : [];
    if (block.type === 'thinking') {
      payloads.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }, ...ping);
      for (const piece of splitEvenly(block.thinking, options.streamChunks)) payloads.push(delta({ type: 'thinking_delta', thinking: piece }));
      payloads.push(delta({ type: 'signature_delta', signature: block.signature }));
    } else if (block.type === 'text') {
      payloads.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, ...ping);
      for (const piece of splitEvenly(block.text, options.streamChunks)) payloads.push(delta({ type: 'text_delta', text: piece }));
    } else {
      // As recorded: the block opens with `input: {}`, then an empty fragment, then the JSON in pieces.
      payloads.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      payloads.push(delta({ type: 'input_json_delta', partial_json: '' }), ...ping);
      for (const fragment of splitEvenly(claudeJson(block.input), Math.max(options.streamChunks, 2))) payloads.push(delta({ type: 'input_json_delta', partial_json: fragment }));
    }
    payloads.push({ type: 'content_block_stop', index });
  }
  payloads.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: deltaUsage(options, outputTokens) });
  payloads.push({ type: 'message_stop' });
  return { kind: 'stream', payloads };
}

/** The usage object of a message (and of `message_start`), keys in the recorded order. */
function fullUsage(options: FakeAnthropicOptions, outputTokens: number): Json {
  return {
    input_tokens: options.inputTokens,
    cache_creation_input_tokens: options.cacheWriteTokens,
    cache_read_input_tokens: options.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: options.cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
    inference_geo: 'not_available',
  };
}

/** The cumulative usage of `message_delta`, as recorded (no cache_creation breakdown, no tier). */
function deltaUsage(options: FakeAnthropicOptions, outputTokens: number): Json {
  return {
    input_tokens: options.inputTokens,
    cache_creation_input_tokens: options.cacheWriteTokens,
    cache_read_input_tokens: options.cacheReadTokens,
    output_tokens: outputTokens,
  };
}

/**
 * A tool is called when custom tools are offered, tool_choice is not "none", and the last turn is the
 * user's without a `tool_result` block; a tool result (or an assistant prefill) is answered with text.
 */
function selectToolToCall(body: Json): { name: string; input: Json } | undefined {
  const tools: Json[] = Array.isArray(body.tools)
    ? body.tools.filter((tool: Json) => typeof tool?.name === 'string' && (tool.type === undefined || tool.type === 'custom'))
    : [];
  if (tools.length === 0 || body.tool_choice?.type === 'none') return undefined;
  const last: Json | undefined = body.messages.at(-1);
  if (last?.role !== 'user') return undefined;
  if (Array.isArray(last.content) && last.content.some((block: Json) => block?.type === 'tool_result')) return undefined;
  const forced = body.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined;
  const tool = tools.find((candidate) => candidate.name === forced) ?? tools[0]!;
  return { name: tool.name, input: sampleArguments(tool.input_schema) };
}

/** Tool input as Claude streams it: `{"location": "Paris"}`, with a space after colons and commas. */
function claudeJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(claudeJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null) return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${claudeJson(item)}`).join(', ')}}`;
  return JSON.stringify(value);
}

const signaturePrefix = 'fake-upstream-thinking-signature-';

/** A signature that names the thinking it signs (a hash of its text), so a replayed block can be verified. */
function fakeSignature(sequence: number, thinking: string): string {
  return Buffer.from(`${signaturePrefix}${String(sequence).padStart(6, '0')}-${thinkingHash(thinking)}`).toString('base64');
}

function thinkingHash(thinking: string): string {
  return createHash('sha256').update(thinking).digest('hex').slice(0, 16);
}

/**
 * The path (`messages.N.content.M`) of the first replayed thinking block this fake signed whose text is not
 * the text it signed. Anthropic refuses a thinking block that differs in any way from what it returned
 * (edited, re-serialized, merged or emptied text: anthropics/anthropic-sdk-python#1598), 400 "Invalid
 * `signature` in `thinking` block". Signatures of any other form are not checked, as before.
 */
function findAlteredThinking(messages: Json[]): string | undefined {
  for (const [index, message] of messages.entries()) {
    if (message?.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const [blockIndex, block] of (message.content as Json[]).entries()) {
      if (block?.type !== 'thinking' || typeof block.signature !== 'string') continue;
      const signed = Buffer.from(block.signature, 'base64').toString('utf8');
      if (!signed.startsWith(signaturePrefix)) continue;
      if (typeof block.thinking !== 'string' || !signed.endsWith(`-${thinkingHash(block.thinking)}`)) return `messages.${index}.content.${blockIndex}`;
    }
  }
  return undefined;
}

// ---- Errors and auth (bodies as Anthropic sends them, see protocols.md §6.3) ----

function requestId(sequence: number): string {
  return `req_011CFakeUpstream${String(sequence).padStart(8, '0')}`;
}

function errorBody(type: string, message: string, sequence: number): Json {
  return { type: 'error', error: { type, message }, request_id: requestId(sequence) };
}

function anthropicError(status: number, type: string, message: string, sequence: number): Reply {
  return { kind: 'json', status, body: errorBody(type, message, sequence) };
}

function defaultErrorBody(status: number, sequence: number): Json {
  const byStatus: Record<number, [string, string]> = {
    400: ['invalid_request_error', 'Invalid request.'],
    401: ['authentication_error', 'invalid x-api-key'],
    402: ['billing_error', 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.'],
    403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
    404: ['not_found_error', 'The requested resource could not be found.'],
    413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
    429: ['rate_limit_error', 'This request would exceed the rate limit for your organization. Please try again later.'],
    500: ['api_error', 'Internal server error'],
    504: ['timeout_error', 'Request timed out'],
    529: ['overloaded_error', 'Overloaded'],
  };
  const [type, message] = byStatus[status] ?? (status < 500 ? ['invalid_request_error', 'Invalid request.'] : ['api_error', 'Internal server error']);
  return errorBody(type, message, sequence);
}

/** The key from `x-api-key` or, as SDK 1.x (API version 2026-10-21) sends it, `Authorization: Bearer`. */
function checkApiKey(headers: IncomingMessage['headers'], expectedKeys: string[] | undefined, sequence: number): Reply | undefined {
  if (expectedKeys === undefined) return undefined;
  const apiKey = headers['x-api-key'];
  const bearer = headers.authorization?.startsWith('Bearer ') ? headers.authorization.slice('Bearer '.length) : undefined;
  const key = (typeof apiKey === 'string' ? apiKey : bearer ?? '').trim();
  if (key === '') return anthropicError(401, 'authentication_error', 'x-api-key header is required', sequence);
  if (expectedKeys.includes(key)) return undefined;
  return anthropicError(401, 'authentication_error', 'invalid x-api-key', sequence);
}

// ---- Serializing replies as Anthropic does ----

function jsonHeaders(sequence: number, text: string): Record<string, string> {
  return { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), 'request-id': requestId(sequence) };
}

function formatJson(reply: Extract<Reply, { kind: 'json' }>, sequence: number): WireReply {
  // Anthropic sends compact JSON with no trailing newline.
  const text = JSON.stringify(reply.body);
  return { kind: 'whole', status: reply.status, headers: jsonHeaders(sequence, text), text };
}

function formatStream(payloads: Json[], { options, sequence }: FakeExchange<FakeAnthropicOptions>): WireReply {
  return {
    kind: 'stream',
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId(sequence) },
    pieces: payloads.map((payload) => `event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`),
    chunkDelayMs: options.chunkDelayMs,
  };
}
