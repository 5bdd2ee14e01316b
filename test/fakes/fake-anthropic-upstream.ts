/**
 * A fake Anthropic Messages upstream on a real loopback socket, for end-to-end tests of the gateway.
 * It speaks Anthropic's wire format as recorded in /work/shared/reference/recorded/anthropic-messages
 * (compact JSON in Anthropic's key order, `event: <type>\ndata: {json}\n\n` framing with a `ping`,
 * `request-id` headers, `{"type":"error",…,"request_id"}` error bodies) and injects the same faults as
 * the OpenAI fake. Stream framing is written by hand on purpose: the fake must not share code with the
 * gateway's own SSE encoder it helps to test.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeFault, RecordedRequest } from './fake-openai-upstream.js';

export type { FakeFault, RecordedRequest } from './fake-openai-upstream.js';

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

export interface FakeAnthropicUpstream {
  url: string;
  requests: RecordedRequest[];
  enqueueFault(fault: FakeFault): void;
  setOptions(options: Partial<FakeAnthropicOptions>): void;
  close(): Promise<void>;
}

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

export async function startFakeAnthropicUpstream(initialOptions: Partial<FakeAnthropicOptions> = {}): Promise<FakeAnthropicUpstream> {
  let options: FakeAnthropicOptions = { ...defaultOptions, ...initialOptions };
  const requests: RecordedRequest[] = [];
  const faults: FakeFault[] = [];
  const closing = new AbortController();
  let sequence = 0;

  const server = createServer((request, response) => {
    const recorded: RecordedRequest = { method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers, body: undefined };
    requests.push(recorded);
    const fault = faults.shift();
    sequence++;
    const context = { options, sequence };
    handleRequest(request, response, recorded, fault, context, closing.signal).catch((error: unknown) => {
      // An aborted wait (client gone, server closing) or a write on a dead socket: drop the connection.
      if (response.headersSent || response.destroyed || closing.signal.aborted) return void response.destroy();
      // Otherwise a bug in the fake itself: say so rather than reset the connection like a fault would.
      const text = JSON.stringify(errorBody('api_error', `fake upstream failed: ${String(error)}`, context.sequence));
      response.writeHead(500, { 'content-type': 'application/json', 'request-id': requestId(context.sequence) }).end(text);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueueFault: (fault) => void faults.push(fault),
    setOptions: (changes) => void (options = { ...options, ...changes }),
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

async function handleRequest(
  request: IncomingMessage,
  response: ServerResponse,
  recorded: RecordedRequest,
  fault: FakeFault | undefined,
  context: Omit<Context, 'body'>,
  serverClosing: AbortSignal,
): Promise<void> {
  const clientGone = new AbortController();
  response.on('close', () => clientGone.abort());
  const signal = AbortSignal.any([serverClosing, clientGone.signal]);

  const rawBody = await readBody(request);
  const parsed = parseBody(rawBody);
  recorded.body = parsed.ok ? parsed.value : rawBody;

  if (fault?.kind === 'reset-before-headers') {
    request.socket.destroy();
    return;
  }
  if (fault?.kind === 'status') {
    const body = fault.body ?? defaultErrorBody(fault.status, context.sequence);
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    response.writeHead(fault.status, { ...jsonHeaders(context.sequence, text), ...fault.headers });
    response.end(text);
    return;
  }
  if (fault?.kind === 'slow-first-byte') await sleep(fault.delayMs, undefined, { signal });

  const reply = answer(request, recorded, parsed, context);
  const afterFirstChunk = fault?.kind === 'cut-after-first-chunk' || fault?.kind === 'stall-after-first-chunk' ? fault : undefined;
  if (reply.kind === 'json') await writeJson(response, reply, context, afterFirstChunk, signal);
  else await writeStream(response, reply.payloads, context, afterFirstChunk, signal);
}

function answer(request: IncomingMessage, recorded: RecordedRequest, parsed: ParsedBody, base: Omit<Context, 'body'>): Reply {
  const { options, sequence } = base;
  const authorizationError = checkApiKey(request.headers, options.expectedKeys, sequence);
  if (authorizationError !== undefined) return authorizationError;
  const version = request.headers['anthropic-version'];
  if (version === undefined) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required', sequence);
  if (typeof version !== 'string' || !knownVersions.includes(version)) return anthropicError(400, 'invalid_request_error', `anthropic-version: ${JSON.stringify(version)} is not a valid version`, sequence);

  const pathname = new URL(recorded.path, 'http://fake').pathname;
  if (recorded.method !== 'POST' || pathname !== '/v1/messages') return anthropicError(404, 'not_found_error', 'Not Found', sequence);
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return anthropicError(400, 'invalid_request_error', 'There was an issue with your request body: it is not valid JSON.', sequence);
  }
  const body = parsed.value as Json;
  if (typeof body.model !== 'string' || body.model === '') return anthropicError(400, 'invalid_request_error', 'model: Field required', sequence);
  if (typeof body.max_tokens !== 'number') return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required', sequence);
  if (!Array.isArray(body.messages)) return anthropicError(400, 'invalid_request_error', 'messages: Field required', sequence);
  // API version 2026-10-21 removed the sampling parameters: sending one is a 400, even at its default value.
  const removed = version === '2026-10-21' ? samplingParameters.find((name) => name in body) : undefined;
  if (removed !== undefined) return anthropicError(400, 'invalid_request_error', `${removed}: Extra inputs are not permitted`, sequence);
  return answerMessage({ ...base, body });
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
  if (options.thinking) blocks.push({ type: 'thinking', thinking: thinkingText, signature: fakeSignature(sequence) });
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

/** Arguments fitting the JSON schema's required (else all) properties: {"location":"Paris"} for a weather tool. */
function sampleArguments(parameters: Json | undefined): Json {
  const properties: Json = parameters?.properties ?? {};
  const names: string[] = Array.isArray(parameters?.required) && parameters.required.length > 0 ? parameters.required : Object.keys(properties);
  const sampleByType: Record<string, unknown> = { number: 1, integer: 1, boolean: true, array: [], object: {} };
  return Object.fromEntries(names.map((name) => [name, properties[name]?.enum?.[0] ?? sampleByType[properties[name]?.type] ?? 'Paris']));
}

/** Tool input as Claude streams it: `{"location": "Paris"}`, with a space after colons and commas. */
function claudeJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(claudeJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null) return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${claudeJson(item)}`).join(', ')}}`;
  return JSON.stringify(value);
}

function fakeSignature(sequence: number): string {
  return Buffer.from(`fake-upstream-thinking-signature-${String(sequence).padStart(6, '0')}`).toString('base64');
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

// ---- Writing replies, with the faults that act after the first chunk ----

type AfterFirstChunkFault = Extract<FakeFault, { kind: 'cut-after-first-chunk' | 'stall-after-first-chunk' }>;

function jsonHeaders(sequence: number, text: string): Record<string, string> {
  return { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), 'request-id': requestId(sequence) };
}

async function writeJson(response: ServerResponse, reply: Extract<Reply, { kind: 'json' }>, context: Omit<Context, 'body'>, fault: AfterFirstChunkFault | undefined, signal: AbortSignal): Promise<void> {
  // Anthropic sends compact JSON with no trailing newline.
  const text = JSON.stringify(reply.body);
  response.writeHead(reply.status, jsonHeaders(context.sequence, text));
  if (fault === undefined) {
    response.end(text);
    return;
  }
  // A JSON body's "first chunk" is its first half.
  const half = Math.floor(text.length / 2);
  await writeChunk(response, text.slice(0, half));
  if (fault.kind === 'cut-after-first-chunk') return void response.socket?.destroy();
  await sleep(fault.delayMs, undefined, { signal });
  response.end(text.slice(half));
}

async function writeStream(response: ServerResponse, payloads: Json[], context: Omit<Context, 'body'>, fault: AfterFirstChunkFault | undefined, signal: AbortSignal): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId(context.sequence) });
  for (const [index, payload] of payloads.entries()) {
    if (index > 0 && context.options.chunkDelayMs > 0) await sleep(context.options.chunkDelayMs, undefined, { signal });
    await writeChunk(response, `event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`);
    if (index === 0 && fault?.kind === 'cut-after-first-chunk') return void response.socket?.destroy();
    if (index === 0 && fault?.kind === 'stall-after-first-chunk') await sleep(fault.delayMs, undefined, { signal });
  }
  response.end();
}

/** Resolves once the text is handed to the socket, so a following destroy cannot swallow it. */
function writeChunk(response: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (response.destroyed) return reject(new Error('response already closed'));
    response.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

// ---- Small helpers (kept apart from the other fakes so each reads on its own) ----

type ParsedBody = { ok: true; value: unknown } | { ok: false };

function parseBody(raw: string): ParsedBody {
  if (raw === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The reply cut to `limit` words (one word ≈ one token here), keeping the original spacing. */
function truncateToWords(reply: string, limit: unknown): { value: string; truncated: boolean; tokens: number } {
  const pieces = reply.match(/\s*\S+/g) ?? [];
  if (typeof limit !== 'number' || limit >= pieces.length) return { value: reply, truncated: false, tokens: pieces.length };
  return { value: pieces.slice(0, Math.max(0, limit)).join(''), truncated: true, tokens: Math.max(0, limit) };
}

/** Splits text into at most `count` non-empty pieces of near-equal length, never inside a code point. */
function splitEvenly(text: string, count: number): string[] {
  const characters = Array.from(text);
  const parts = Math.max(1, Math.min(count, characters.length));
  const pieces: string[] = [];
  for (let part = 0; part < parts; part++) {
    const piece = characters.slice(Math.floor((part * characters.length) / parts), Math.floor(((part + 1) * characters.length) / parts)).join('');
    if (piece !== '') pieces.push(piece);
  }
  return pieces;
}
