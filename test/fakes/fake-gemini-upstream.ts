/**
 * A fake Gemini (generativelanguage v1beta) upstream on a real loopback socket, for end-to-end tests of
 * the gateway. It speaks Google's wire format as recorded in /work/shared/reference/recorded/gemini and
 * as Google serializes it: pretty-printed JSON bodies (2 spaces, trailing newline), SSE events
 * `data: {"key": value,"key": value}\r\n\r\n` with no `[DONE]` (`?alt=sse`), or without alt=sse a JSON
 * array streamed element by element (`[{…}\r\n,\r\n{…}\r\n]`); `<`, `>` and `&` escaped as `\u003c`….
 * It injects the same faults as the OpenAI fake. Framing is written by hand on purpose: the fake must
 * not share code with the gateway's own encoders it helps to test.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeFault, RecordedRequest } from './fake-openai-upstream.js';

export type { FakeFault, RecordedRequest } from './fake-openai-upstream.js';

export interface FakeGeminiOptions {
  reply: string;
  streamChunks: number;
  chunkDelayMs: number;
  inputTokens: number;
  /** `candidatesTokenCount` of a whole answer (a truncated one reports its word count instead). */
  outputTokens: number;
  /** `cachedContentTokenCount`, a part of `promptTokenCount`; omitted when 0, as Google does. */
  cachedTokens: number;
  /** Answer with `thought: true` parts and a `thoughtSignature`, and report `thoughtsTokenCount`. */
  thinking: boolean;
  /** `thoughtsTokenCount` when `thinking` is on; counted in `totalTokenCount`, not in candidates. */
  reasoningTokens: number;
  /** Keys accepted in `x-goog-api-key` or `?key=`; undefined accepts any request, with or without a key. */
  expectedKeys: string[] | undefined;
}

export interface FakeGeminiUpstream {
  url: string;
  requests: RecordedRequest[];
  enqueueFault(fault: FakeFault): void;
  setOptions(options: Partial<FakeGeminiOptions>): void;
  close(): Promise<void>;
}

const defaultOptions: FakeGeminiOptions = {
  reply: 'Hello from the fake upstream!',
  streamChunks: 5,
  chunkDelayMs: 0,
  inputTokens: 17,
  outputTokens: 9,
  cachedTokens: 0,
  thinking: false,
  reasoningTokens: 12,
  expectedKeys: undefined,
};

type Json = Record<string, any>;
/** What a route answers: a JSON body, or the GenerateContentResponses of a stream, SSE or JSON array. */
type Reply = { kind: 'json'; status: number; body: unknown } | { kind: 'stream'; framing: 'sse' | 'array'; payloads: Json[] };

interface Context {
  options: FakeGeminiOptions;
  body: Json;
  model: string;
  /** Numbers the ids of this server's responses, so ids are stable from run to run. */
  sequence: number;
}

const thoughtText = '**Answering the greeting**\n\nThe user said hello. A short, friendly reply fits.';

export async function startFakeGeminiUpstream(initialOptions: Partial<FakeGeminiOptions> = {}): Promise<FakeGeminiUpstream> {
  let options: FakeGeminiOptions = { ...defaultOptions, ...initialOptions };
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
      const text = googleJson({ error: { code: 500, message: `fake upstream failed: ${String(error)}`, status: 'INTERNAL' } });
      response.writeHead(500, { 'content-type': 'application/json; charset=UTF-8' }).end(text);
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
  context: Omit<Context, 'body' | 'model'>,
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
    const body = fault.body ?? defaultErrorBody(fault.status);
    const text = typeof body === 'string' ? body : googleJson(body);
    response.writeHead(fault.status, { ...jsonHeaders(text), ...fault.headers });
    response.end(text);
    return;
  }
  if (fault?.kind === 'slow-first-byte') await sleep(fault.delayMs, undefined, { signal });

  const reply = answer(request, recorded, parsed, context);
  const afterFirstChunk = fault?.kind === 'cut-after-first-chunk' || fault?.kind === 'stall-after-first-chunk' ? fault : undefined;
  if (reply.kind === 'json') await writeJson(response, reply, afterFirstChunk, signal);
  else await writeStream(response, reply, context.options, afterFirstChunk, signal);
}

function answer(request: IncomingMessage, recorded: RecordedRequest, parsed: ParsedBody, base: Omit<Context, 'body' | 'model'>): Reply {
  const url = new URL(recorded.path, 'http://fake');
  const headerKey = request.headers['x-goog-api-key'];
  const keyError = checkApiKey(typeof headerKey === 'string' ? headerKey : url.searchParams.get('key'), base.options.expectedKeys);
  if (keyError !== undefined) return keyError;

  // /v1beta/models/{model}:{method} (v1 too); the model may hold dots and dashes, the method is after the last colon.
  const route = /^\/(v1beta|v1)\/models\/([^/:]+):([A-Za-z]+)$/.exec(url.pathname);
  const model = route?.[2] === undefined ? undefined : decodeURIComponent(route[2]);
  const method = route?.[3];
  if (recorded.method !== 'POST' || model === undefined || (method !== 'generateContent' && method !== 'streamGenerateContent')) {
    return googleError(404, `Method not found: ${recorded.method} ${url.pathname}`, 'NOT_FOUND');
  }
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return googleError(400, 'Invalid JSON payload received. Unexpected token.', 'INVALID_ARGUMENT');
  }
  const body = parsed.value as Json;
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    return googleError(400, '* GenerateContentRequest.contents: contents is not specified\n', 'INVALID_ARGUMENT');
  }
  const context: Context = { ...base, body, model };
  if (method === 'generateContent') return { kind: 'json', status: 200, body: answerWhole(context) };
  return { kind: 'stream', framing: url.searchParams.get('alt') === 'sse' ? 'sse' : 'array', payloads: answerStream(context) };
}

// ---- generateContent / streamGenerateContent ----

interface Plan {
  functionCall: { name: string; args: Json } | undefined;
  text: string;
  finishReason: 'STOP' | 'MAX_TOKENS';
  candidatesTokens: number;
  signature: string | undefined;
}

function plan(context: Context): Plan {
  const { body, options, sequence } = context;
  const functionCall = selectFunctionToCall(body);
  const text = truncateToWords(options.reply, body.generationConfig?.maxOutputTokens);
  const truncated = functionCall === undefined && text.truncated;
  return {
    functionCall,
    text: text.value,
    finishReason: truncated ? 'MAX_TOKENS' : 'STOP',
    candidatesTokens: truncated ? text.tokens : options.outputTokens,
    signature: options.thinking ? Buffer.from(`fake-upstream-thought-signature-${String(sequence).padStart(6, '0')}`).toString('base64') : undefined,
  };
}

/** A whole answer: thought part first (when thinking), the signature on the first part after it. */
function answerWhole(context: Context): Json {
  const { options } = context;
  const answer = plan(context);
  const parts: Json[] = [];
  if (options.thinking) parts.push({ text: thoughtText, thought: true });
  const signed = answer.signature === undefined ? {} : { thoughtSignature: answer.signature };
  if (answer.functionCall !== undefined) parts.push({ functionCall: answer.functionCall, ...signed });
  else parts.push({ text: answer.text, ...signed });
  const candidate: Json = { content: { parts, role: 'model' }, finishReason: answer.finishReason, index: 0 };
  if (answer.functionCall !== undefined) candidate.finishMessage = 'Model generated function call(s).';
  return response(context, [candidate], usage(options, answer.candidatesTokens));
}

/**
 * A streamed answer, shaped like the recordings: thought parts first (when thinking), text split across
 * chunks with cumulative usage on every chunk and `finishReason` on the last. When thinking, the
 * signature arrives as Gemini 3 streams it, on an empty text part of a closing chunk; a function call
 * comes whole in one chunk (signed when thinking), followed by an empty text chunk with `STOP`.
 */
function answerStream(context: Context): Json[] {
  const { options } = context;
  const answer = plan(context);
  const chunk = (parts: Json[], candidatesTokens: number, finishReason?: string): Json => {
    const candidate: Json = { content: { parts, role: 'model' }, ...(finishReason === undefined ? {} : { finishReason }), index: 0 };
    return response(context, [candidate], usage(options, candidatesTokens));
  };

  const payloads: Json[] = [];
  if (options.thinking) {
    for (const piece of splitEvenly(thoughtText, 2)) payloads.push(chunk([{ text: piece, thought: true }], 0));
  }
  if (answer.functionCall !== undefined) {
    const signed = answer.signature === undefined ? {} : { thoughtSignature: answer.signature };
    payloads.push(chunk([{ functionCall: answer.functionCall, ...signed }], answer.candidatesTokens));
    payloads.push(chunk([{ text: '' }], answer.candidatesTokens, 'STOP'));
    return payloads;
  }
  const pieces = splitEvenly(answer.text, options.streamChunks);
  if (pieces.length === 0) pieces.push('');
  for (const [index, piece] of pieces.entries()) {
    const soFar = Math.max(1, Math.round((answer.candidatesTokens * (index + 1)) / pieces.length));
    const last = index === pieces.length - 1;
    payloads.push(chunk([{ text: piece }], last ? answer.candidatesTokens : soFar, last && answer.signature === undefined ? answer.finishReason : undefined));
  }
  if (answer.signature !== undefined) payloads.push(chunk([{ text: '', thoughtSignature: answer.signature }], answer.candidatesTokens, answer.finishReason));
  return payloads;
}

function response(context: Context, candidates: Json[], usageMetadata: Json): Json {
  return { candidates, usageMetadata, modelVersion: context.model, responseId: `FakeUpstream${String(context.sequence).padStart(11, '0')}` };
}

/** usageMetadata in Google's field order; zero counts are left out, as proto3 JSON does. */
function usage(options: FakeGeminiOptions, candidatesTokens: number): Json {
  const thoughts = options.thinking ? options.reasoningTokens : 0;
  return {
    promptTokenCount: options.inputTokens,
    ...(candidatesTokens > 0 ? { candidatesTokenCount: candidatesTokens } : {}),
    totalTokenCount: options.inputTokens + candidatesTokens + thoughts,
    ...(options.cachedTokens > 0 ? { cachedContentTokenCount: options.cachedTokens } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: options.inputTokens }],
    ...(options.cachedTokens > 0 ? { cacheTokensDetails: [{ modality: 'TEXT', tokenCount: options.cachedTokens }] } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
  };
}

/**
 * A function is called when declarations are offered, the calling mode is not NONE, and the last
 * content is not a function response; a `functionResponse` part (or a model turn) is answered with text.
 */
function selectFunctionToCall(body: Json): { name: string; args: Json } | undefined {
  const declarations: Json[] = Array.isArray(body.tools)
    ? body.tools.flatMap((tool: Json) => (Array.isArray(tool?.functionDeclarations) ? tool.functionDeclarations : [])).filter((declaration: Json) => typeof declaration?.name === 'string')
    : [];
  const calling: Json | undefined = body.toolConfig?.functionCallingConfig;
  if (declarations.length === 0 || calling?.mode === 'NONE') return undefined;
  const last: Json | undefined = body.contents.at(-1);
  if (last?.role === 'model') return undefined;
  if (Array.isArray(last?.parts) && last.parts.some((part: Json) => part?.functionResponse !== undefined)) return undefined;
  const allowed: unknown[] = Array.isArray(calling?.allowedFunctionNames) ? calling.allowedFunctionNames : [];
  const declaration = declarations.find((candidate) => allowed.includes(candidate.name)) ?? declarations[0]!;
  return { name: declaration.name, args: sampleArguments(declaration.parametersJsonSchema ?? declaration.parameters) };
}

/** Arguments fitting the schema's required (else all) properties: {"location":"Paris"}. Gemini types may be upper case. */
function sampleArguments(parameters: Json | undefined): Json {
  const properties: Json = parameters?.properties ?? {};
  const names: string[] = Array.isArray(parameters?.required) && parameters.required.length > 0 ? parameters.required : Object.keys(properties);
  const sampleByType: Record<string, unknown> = { number: 1, integer: 1, boolean: true, array: [], object: {} };
  return Object.fromEntries(names.map((name) => {
    const type = typeof properties[name]?.type === 'string' ? properties[name].type.toLowerCase() : undefined;
    return [name, properties[name]?.enum?.[0] ?? (type === undefined ? undefined : sampleByType[type]) ?? 'Paris'];
  }));
}

// ---- Errors and keys (bodies as Google sends them, see protocols.md §7) ----

function googleError(code: number, message: string, status: string, details?: Json[]): Reply {
  return { kind: 'json', status: code, body: { error: { code, message, status, ...(details === undefined ? {} : { details }) } } };
}

function defaultErrorBody(code: number): Json {
  const byStatus: Record<number, [string, string]> = {
    400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
    403: ['PERMISSION_DENIED', 'The caller does not have permission'],
    404: ['NOT_FOUND', 'Requested entity was not found.'],
    429: ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'],
    500: ['INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting'],
    503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
    504: ['DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'],
  };
  const [status, message] = byStatus[code] ?? (code < 500 ? ['FAILED_PRECONDITION', 'Precondition check failed.'] : ['UNKNOWN', 'Unknown error.']);
  return { error: { code, message, status } };
}

const invalidKeyMessage = 'API key not valid. Please pass a valid API key.';

function checkApiKey(key: string | null, expectedKeys: string[] | undefined): Reply | undefined {
  if (expectedKeys === undefined) return undefined;
  if (key === null || key.trim() === '') {
    return googleError(403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.", 'PERMISSION_DENIED');
  }
  if (expectedKeys.includes(key.trim())) return undefined;
  // Google answers a bad key with 400 INVALID_ARGUMENT; only details[].reason says it is the key.
  return googleError(400, invalidKeyMessage, 'INVALID_ARGUMENT', [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
    { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: invalidKeyMessage },
  ]);
}

// ---- Google's JSON serializations ----

/** Google escapes these inside strings (e.g. `x \u003c 0`); they cannot occur outside strings in JSON. */
function escapeLikeGoogle(json: string): string {
  return json.replace(/[<>&]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A whole body: pretty-printed with 2 spaces and a trailing newline. */
function googleJson(value: unknown): string {
  return `${escapeLikeGoogle(JSON.stringify(value, null, 2))}\n`;
}

/** One SSE event's data: on one line, a space after each colon, none after commas: `{"a": 1,"b": [{"c": "d"}]}`. */
function googleLineJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(googleLineJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value).filter(([, item]) => item !== undefined).map(([key, item]) => `${JSON.stringify(key)}: ${googleLineJson(item)}`).join(',')}}`;
  }
  return escapeLikeGoogle(JSON.stringify(value));
}

// ---- Writing replies, with the faults that act after the first chunk ----

type AfterFirstChunkFault = Extract<FakeFault, { kind: 'cut-after-first-chunk' | 'stall-after-first-chunk' }>;

function jsonHeaders(text: string): Record<string, string> {
  return { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(Buffer.byteLength(text)), vary: 'Origin, X-Origin, Referer', server: 'scaffolding on HTTPServer2' };
}

async function writeJson(response: ServerResponse, reply: Extract<Reply, { kind: 'json' }>, fault: AfterFirstChunkFault | undefined, signal: AbortSignal): Promise<void> {
  const text = googleJson(reply.body);
  response.writeHead(reply.status, jsonHeaders(text));
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

async function writeStream(response: ServerResponse, reply: Extract<Reply, { kind: 'stream' }>, options: FakeGeminiOptions, fault: AfterFirstChunkFault | undefined, signal: AbortSignal): Promise<void> {
  const sse = reply.framing === 'sse';
  response.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json; charset=UTF-8', vary: 'Origin, X-Origin, Referer', server: 'scaffolding on HTTPServer2' });
  // SSE: one `data:` event per response. Array: `[` + first element, then `\r\n,\r\n` + each next one, then `\r\n]`.
  const pieces = reply.payloads.map((payload, index) => {
    if (sse) return `data: ${googleLineJson(payload)}\r\n\r\n`;
    const element = escapeLikeGoogle(JSON.stringify(payload, null, 2));
    return index === 0 ? `[${element}` : `\r\n,\r\n${element}`;
  });
  if (!sse) pieces.push('\r\n]');
  for (const [index, piece] of pieces.entries()) {
    if (index > 0 && options.chunkDelayMs > 0) await sleep(options.chunkDelayMs, undefined, { signal });
    await writeChunk(response, piece);
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
