/**
 * A fake Gemini (generativelanguage v1beta) upstream on a real loopback socket, for end-to-end tests of
 * the gateway. It speaks Google's wire format as recorded in /work/shared/reference/recorded/gemini and
 * as Google serializes it: pretty-printed JSON bodies (2 spaces, trailing newline), SSE events
 * `data: {"key": value,"key": value}\r\n\r\n` with no `[DONE]` (`?alt=sse`), or without alt=sse a JSON
 * array streamed element by element (`[{…}\r\n,\r\n{…}\r\n]`); `<`, `>` and `&` escaped as `\u003c`….
 * It injects the same faults as the OpenAI fake. Framing is written by hand on purpose: the fake must
 * not share code with the gateway's own encoders it helps to test.
 */
import { startFakeServer, type FakeDialect, type FakeExchange, type FakeUpstream, type WireReply } from './fake-server.js';
import { sampleArguments, splitEvenly, truncateToWords } from './fake-reply-helpers.js';

export type { FakeFault, RecordedRequest } from './fake-server.js';

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

export type FakeGeminiUpstream = FakeUpstream<FakeGeminiOptions>;

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

export function startFakeGeminiUpstream(initialOptions: Partial<FakeGeminiOptions> = {}): Promise<FakeGeminiUpstream> {
  return startFakeServer({ ...defaultOptions, ...initialOptions }, geminiDialect);
}

const geminiDialect: FakeDialect<FakeGeminiOptions> = {
  answer(exchange) {
    const reply = answer(exchange);
    return reply.kind === 'json' ? formatJson(reply) : formatStream(reply, exchange.options);
  },
  answerStatusFault(fault) {
    const body = fault.body ?? defaultErrorBody(fault.status);
    const text = typeof body === 'string' ? body : googleJson(body);
    return { headers: jsonHeaders(text), text };
  },
  answerInternalError(message) {
    return { headers: { 'content-type': 'application/json; charset=UTF-8' }, text: googleJson({ error: { code: 500, message, status: 'INTERNAL' } }) };
  },
};

function answer({ request, recorded, parsed, options, sequence }: FakeExchange<FakeGeminiOptions>): Reply {
  const url = new URL(recorded.path, 'http://fake');
  const headerKey = request.headers['x-goog-api-key'];
  const keyError = checkApiKey(typeof headerKey === 'string' ? headerKey : url.searchParams.get('key'), options.expectedKeys);
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
  const toolRefusal = refuseToolFields(body);
  if (toolRefusal !== undefined) return toolRefusal;
  const context: Context = { options, sequence, body, model };
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

/** A tool entry's declarations, as the REST API takes them (camelCase or snake_case). */
function declarationsOf(tool: Json): Json[] {
  const declarations = tool?.functionDeclarations ?? tool?.function_declarations;
  return Array.isArray(declarations) ? declarations : [];
}

/**
 * What Gemini refuses about tools. `tools: []` is an empty repeated field, the same as none, and is taken.
 * A tool entry that declares nothing (`{functionDeclarations: []}`, `{}`) is a bare "Request contains an
 * invalid argument." (zed-industries/zed#28747 sent one), and a function-calling config beside no function
 * declarations is refused by Gemini 2.5 and earlier on the Developer API (pydantic/pydantic-ai#5791).
 */
function refuseToolFields(body: Json): Reply | undefined {
  const tools: Json[] = Array.isArray(body.tools) ? body.tools : [];
  const declaresNothing = (tool: Json) => typeof tool !== 'object' || tool === null
    || Object.keys(tool).every((key) => (key === 'functionDeclarations' || key === 'function_declarations') && declarationsOf(tool).length === 0);
  if (tools.some(declaresNothing)) return googleError(400, 'Request contains an invalid argument.', 'INVALID_ARGUMENT');
  const calling = (body.toolConfig ?? body.tool_config)?.functionCallingConfig ?? (body.toolConfig ?? body.tool_config)?.function_calling_config;
  if (calling != null && !tools.some((tool) => declarationsOf(tool).length > 0)) {
    return googleError(400, 'Function calling config is set without function_declarations.', 'INVALID_ARGUMENT');
  }
  return undefined;
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

// ---- Serializing replies as Google does ----

function jsonHeaders(text: string): Record<string, string> {
  return { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(Buffer.byteLength(text)), vary: 'Origin, X-Origin, Referer', server: 'scaffolding on HTTPServer2' };
}

function formatJson(reply: Extract<Reply, { kind: 'json' }>): WireReply {
  const text = googleJson(reply.body);
  return { kind: 'whole', status: reply.status, headers: jsonHeaders(text), text };
}

function formatStream(reply: Extract<Reply, { kind: 'stream' }>, options: FakeGeminiOptions): WireReply {
  const sse = reply.framing === 'sse';
  // SSE: one `data:` event per response. Array: `[` + first element, then `\r\n,\r\n` + each next one, then `\r\n]`.
  const pieces = reply.payloads.map((payload, index) => {
    if (sse) return `data: ${googleLineJson(payload)}\r\n\r\n`;
    const element = escapeLikeGoogle(JSON.stringify(payload, null, 2));
    return index === 0 ? `[${element}` : `\r\n,\r\n${element}`;
  });
  if (!sse) pieces.push('\r\n]');
  return {
    kind: 'stream',
    headers: { 'content-type': sse ? 'text/event-stream' : 'application/json; charset=UTF-8', vary: 'Origin, X-Origin, Referer', server: 'scaffolding on HTTPServer2' },
    pieces,
    chunkDelayMs: options.chunkDelayMs,
  };
}
