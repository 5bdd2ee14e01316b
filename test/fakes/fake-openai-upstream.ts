/**
 * A fake OpenAI-compatible upstream on a real loopback socket, for end-to-end tests of the gateway.
 * It speaks OpenAI's wire format as recorded in /work/shared/reference/recorded/openai-chat
 * (chunk shapes, key order, `data: {json}\n\n` framing, `[DONE]`, error bodies) and can inject one
 * network or HTTP fault per request. Stream framing is written by hand here on purpose: the fake
 * must not share code with the gateway's own SSE encoder it helps to test.
 */
import { startFakeServer, type FakeDialect, type FakeExchange, type FakeUpstream, type WireReply } from './fake-server.js';
import { sampleArguments, splitEvenly, truncateToWords } from './fake-reply-helpers.js';

export type { FakeFault, RecordedRequest } from './fake-server.js';

export interface FakeOptions {
  reply: string;
  streamChunks: number;
  chunkDelayMs: number;
  usageInStream: boolean;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  expectedKeys: string[] | undefined;
}

export type FakeOpenaiUpstream = FakeUpstream<FakeOptions>;

const defaultOptions: FakeOptions = {
  reply: 'Hello from the fake upstream!',
  streamChunks: 5,
  chunkDelayMs: 0,
  usageInStream: true,
  promptTokens: 17,
  completionTokens: 9,
  cachedTokens: 0,
  reasoningTokens: 0,
  expectedKeys: undefined,
};

type Json = Record<string, any>;
/** What a route answers: a JSON body, or the data payloads of an SSE stream (`[DONE]` is added). */
type Reply = { kind: 'json'; status: number; body: unknown } | { kind: 'stream'; payloads: Json[] };

interface Context {
  options: FakeOptions;
  body: Json;
  /** Numbers the ids of this server's responses, so ids are stable from run to run. */
  sequence: number;
  created: number;
}

const systemFingerprint = 'fp_fake0upstream';

export function startFakeOpenaiUpstream(initialOptions: Partial<FakeOptions> = {}): Promise<FakeOpenaiUpstream> {
  return startFakeServer({ ...defaultOptions, ...initialOptions }, openaiDialect);
}

const openaiDialect: FakeDialect<FakeOptions> = {
  answer(exchange) {
    const context = { options: exchange.options, sequence: exchange.sequence, created: Math.floor(Date.now() / 1000) };
    const reply = answer(exchange, context);
    return reply.kind === 'json' ? formatJson(reply, context.sequence) : formatStream(reply.payloads, context);
  },
  answerStatusFault(fault, sequence) {
    const body = fault.body ?? defaultErrorBody(fault.status);
    const text = typeof body === 'string' ? body : `${JSON.stringify(body, null, 4)}\n`;
    return { headers: { 'content-type': 'application/json; charset=utf-8', ...jsonHeaders(sequence, text) }, text };
  },
  answerInternalError(message) {
    const text = JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } });
    return { headers: { 'content-type': 'application/json' }, text };
  },
};

function answer({ request, recorded, parsed }: FakeExchange<FakeOptions>, base: Omit<Context, 'body'>): Reply {
  const { options } = base;
  const authorizationError = checkAuthorization(request.headers.authorization, options.expectedKeys);
  if (authorizationError !== undefined) return authorizationError;

  const pathname = new URL(recorded.path, 'http://fake').pathname;
  const route = `${recorded.method} ${pathname}`;
  if (recorded.method === 'GET' && pathname === '/v1/models') return { kind: 'json', status: 200, body: { object: 'list', data: fakeModels } };
  if (recorded.method === 'GET' && pathname.startsWith('/v1/models/')) return retrieveModel(decodeURIComponent(pathname.slice('/v1/models/'.length)));

  const handlers: Record<string, (context: Context) => Reply> = {
    'POST /v1/chat/completions': answerChatCompletion,
    'POST /v1/completions': answerCompletion,
    'POST /v1/embeddings': answerEmbeddings,
    'POST /v1/moderations': answerModerations,
    'POST /v1/rerank': answerRerank,
  };
  const handler = handlers[route];
  if (handler === undefined) return openaiError(404, `Invalid URL (${route})`, 'invalid_request_error', null, null);
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return openaiError(
      400,
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
      'invalid_request_error',
      null,
      null,
    );
  }
  const body = parsed.value as Json;
  if (typeof body.model !== 'string' || body.model === '') return openaiError(400, 'you must provide a model parameter', 'invalid_request_error', null, null);
  return handler({ ...base, body });
}

// ---- Chat completions ----

function answerChatCompletion(context: Context): Reply {
  const { body, options } = context;
  if (!Array.isArray(body.messages)) return openaiError(400, "Missing required parameter: 'messages'.", 'invalid_request_error', 'messages', 'missing_required_parameter');
  const refusal = refuseToolFields(body);
  if (refusal !== undefined) return refusal;
  const id = `chatcmpl-FakeUpstream${String(context.sequence).padStart(12, '0')}`;
  const tool = selectToolToCall(body);
  const text = truncateToWords(options.reply, body.max_completion_tokens ?? body.max_tokens);
  const finishReason = tool !== undefined ? 'tool_calls' : text.truncated ? 'length' : 'stop';
  const usage = chatUsage(options, text.truncated ? text.tokens : options.completionTokens);
  const toolCall = tool === undefined ? undefined : { id: `call_FakeUpstream${String(context.sequence).padStart(8, '0')}`, type: 'function', function: tool };

  if (body.stream !== true) {
    const message = toolCall === undefined
      ? { role: 'assistant', content: text.value, refusal: null, annotations: [] }
      : { role: 'assistant', content: null, tool_calls: [toolCall], refusal: null, annotations: [] };
    return {
      kind: 'json',
      status: 200,
      body: {
        id, object: 'chat.completion', created: context.created, model: body.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
        usage, service_tier: 'default', system_fingerprint: systemFingerprint,
      },
    };
  }

  const includeUsage = options.usageInStream && body.stream_options?.include_usage === true;
  const obfuscate = body.stream_options?.include_obfuscation !== false;
  // OpenAI puts `"usage":null` in every chunk once usage was asked for, and pads each chunk with
  // a random `obfuscation` string (stream_options.include_obfuscation, on by default).
  const chunk = (choices: Json[], extra: Json = {}): Json => ({
    id, object: 'chat.completion.chunk', created: context.created, model: body.model,
    service_tier: 'default', system_fingerprint: systemFingerprint, choices,
    ...(includeUsage ? { usage: null } : {}), ...extra,
    ...(obfuscate ? { obfuscation: 'F4kePad' } : {}),
  });
  const choice = (delta: Json, finish: string | null = null): Json => ({ index: 0, delta, logprobs: null, finish_reason: finish });

  const payloads: Json[] = [];
  if (toolCall === undefined) {
    payloads.push(chunk([choice({ role: 'assistant', content: '', refusal: null })]));
    for (const piece of splitEvenly(text.value, options.streamChunks)) payloads.push(chunk([choice({ content: piece })]));
  } else {
    // As OpenAI does: the first chunk names the call with empty arguments, the rest carry fragments.
    const first = { index: 0, id: toolCall.id, type: 'function', function: { name: toolCall.function.name, arguments: '' } };
    payloads.push(chunk([choice({ role: 'assistant', content: null, tool_calls: [first], refusal: null })]));
    for (const fragment of splitEvenly(toolCall.function.arguments, Math.max(options.streamChunks, 2))) {
      payloads.push(chunk([choice({ tool_calls: [{ index: 0, function: { arguments: fragment } }] })]));
    }
  }
  payloads.push(chunk([choice({}, finishReason)]));
  if (includeUsage) payloads.push(chunk([], { usage }));
  return { kind: 'stream', payloads };
}

function chatUsage(options: FakeOptions, completionTokens: number): Json {
  return {
    prompt_tokens: options.promptTokens,
    completion_tokens: completionTokens,
    total_tokens: options.promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: options.cachedTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: options.reasoningTokens, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/**
 * What OpenAI refuses about tools in a Chat request, with its wording: an empty array ("Invalid 'tools':
 * empty array…", code `empty_array`; continuedev/continue#3403, vllm-project/vllm#39780), an empty
 * `tool_calls` on an assistant message (openai/openai-node#1341), and `tool_choice` or
 * `parallel_tool_calls` without tools ("… is only allowed when 'tools' are specified").
 */
function refuseToolFields(body: Json): Reply | undefined {
  const emptyArray = (path: string) => openaiError(400, `Invalid '${path}': empty array. Expected an array with minimum length 1, but got an empty array instead.`, 'invalid_request_error', path, 'empty_array');
  if (Array.isArray(body.tools) && body.tools.length === 0) return emptyArray('tools');
  const emptyCalls = body.messages.findIndex((message: Json) => Array.isArray(message?.tool_calls) && message.tool_calls.length === 0);
  if (emptyCalls !== -1) return emptyArray(`messages[${emptyCalls}].tool_calls`);
  if (body.tools != null) return undefined;
  const alone = ['tool_choice', 'parallel_tool_calls'].find((field) => body[field] != null);
  if (alone === undefined) return undefined;
  return openaiError(400, `Invalid value for '${alone}': '${alone}' is only allowed when 'tools' are specified.`, 'invalid_request_error', alone, null);
}

/** A tool call is answered when tools are offered and the user spoke last (not a tool result). */
function selectToolToCall(body: Json): { name: string; arguments: string } | undefined {
  const tools: Json[] = Array.isArray(body.tools) ? body.tools.filter((tool: Json) => tool?.type === 'function' && typeof tool.function?.name === 'string') : [];
  if (tools.length === 0 || body.tool_choice === 'none' || body.messages.at(-1)?.role !== 'user') return undefined;
  const forced = body.tool_choice?.function?.name;
  const tool = tools.find((candidate) => candidate.function.name === forced) ?? tools[0]!;
  return { name: tool.function.name, arguments: JSON.stringify(sampleArguments(tool.function.parameters)) };
}

// ---- Legacy completions (shapes from openai-completion-text.chunks.txt) ----

function answerCompletion(context: Context): Reply {
  const { body, options } = context;
  const id = `cmpl-FakeUpstream${String(context.sequence).padStart(12, '0')}`;
  const text = truncateToWords(options.reply, body.max_tokens ?? 16); // 16: the endpoint's default
  const finishReason = text.truncated ? 'length' : 'stop';
  const completionTokens = text.truncated ? text.tokens : options.completionTokens;
  const usage = { prompt_tokens: options.promptTokens, completion_tokens: completionTokens, total_tokens: options.promptTokens + completionTokens };
  if (body.stream !== true) {
    return {
      kind: 'json',
      status: 200,
      body: { id, object: 'text_completion', created: context.created, model: body.model, choices: [{ text: text.value, index: 0, logprobs: null, finish_reason: finishReason }], usage },
    };
  }
  const includeUsage = options.usageInStream && body.stream_options?.include_usage === true;
  const pieces = splitEvenly(text.value, options.streamChunks);
  // Unlike chat, the last text chunk itself carries the finish reason.
  const payloads: Json[] = pieces.map((piece, index) => ({
    id, object: 'text_completion', created: context.created,
    choices: [{ text: piece, index: 0, logprobs: null, finish_reason: index === pieces.length - 1 ? finishReason : null }],
    model: body.model, ...(includeUsage ? { usage: null } : {}),
  }));
  if (includeUsage) payloads.push({ id, object: 'text_completion', created: context.created, model: body.model, usage, choices: [] });
  return { kind: 'stream', payloads };
}

// ---- Embeddings, moderations, rerank, models ----

function answerEmbeddings(context: Context): Reply {
  const { body, options } = context;
  const inputs = listEmbeddingInputs(body.input);
  if (inputs === undefined) return openaiError(400, "'input' is a required property", 'invalid_request_error', null, null);
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : 8;
  const data = inputs.map((input, index) => {
    const vector = embed(input, dimensions);
    const embedding = body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  return { kind: 'json', status: 200, body: { object: 'list', data, model: body.model, usage: { prompt_tokens: options.promptTokens, total_tokens: options.promptTokens } } };
}

/** A string, an array of strings, a token array, or an array of token arrays → one text per embedding. */
function listEmbeddingInputs(input: unknown): string[] | undefined {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input) || input.length === 0) return undefined;
  if (input.every((item) => typeof item === 'number')) return [input.join(' ')];
  return input.map((item) => (Array.isArray(item) ? item.join(' ') : String(item)));
}

/** A deterministic unit vector derived from the text (FNV-1a seeded), so equal inputs embed equally. */
function embed(text: string, dimensions: number): number[] {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193) >>> 0;
  const raw = Array.from({ length: dimensions }, (_, index) => Math.sin(hash + index * 1.618));
  const norm = Math.hypot(...raw) || 1;
  return raw.map((value) => Math.fround(value / norm));
}

const moderationCategories = [
  'harassment', 'harassment/threatening', 'hate', 'hate/threatening', 'illicit', 'illicit/violent', 'self-harm',
  'self-harm/intent', 'self-harm/instructions', 'sexual', 'sexual/minors', 'violence', 'violence/graphic',
];

function answerModerations(context: Context): Reply {
  const { body } = context;
  const input = body.input;
  // Strings (one result each), or multimodal parts (one result for all of them together).
  const texts: string[] | undefined = typeof input === 'string' ? [input]
    : Array.isArray(input) && input.every((item) => typeof item === 'string') ? input
    : Array.isArray(input) ? [input.map((part: Json) => (typeof part?.text === 'string' ? part.text : '')).join(' ')]
    : undefined;
  if (texts === undefined) return openaiError(400, "Missing required parameter: 'input'.", 'invalid_request_error', 'input', 'missing_required_parameter');
  const omni = body.model.startsWith('omni-');
  const results = texts.map((text) => {
    const violent = text.toLowerCase().includes('kill');
    const flags = Object.fromEntries(moderationCategories.map((category) => [category, violent && category === 'violence']));
    const scores = Object.fromEntries(moderationCategories.map((category) => [category, violent && category === 'violence' ? 0.93 : 0.0001]));
    const appliedTypes = Object.fromEntries(moderationCategories.map((category) => [category, ['text']]));
    return { flagged: violent, categories: flags, ...(omni ? { category_applied_input_types: appliedTypes } : {}), category_scores: scores };
  });
  return { kind: 'json', status: 200, body: { id: `modr-FakeUpstream${context.sequence}`, model: body.model, results } };
}

function answerRerank(context: Context): Reply {
  const { body, options } = context;
  if (typeof body.query !== 'string' || !Array.isArray(body.documents)) {
    return openaiError(400, "'query' (string) and 'documents' (array) are required", 'invalid_request_error', null, null);
  }
  const queryWords = words(body.query);
  const scored = body.documents.map((document: unknown, index: number) => {
    const text = typeof document === 'string' ? document : String((document as Json)?.text ?? '');
    const documentWords = new Set(words(text));
    const overlap = queryWords.length === 0 ? 0 : queryWords.filter((word) => documentWords.has(word)).length / queryWords.length;
    return { index, relevance_score: 0.05 + 0.9 * overlap, ...(body.return_documents === true ? { document: { text } } : {}) };
  });
  scored.sort((left: Json, right: Json) => right.relevance_score - left.relevance_score || left.index - right.index);
  const results = typeof body.top_n === 'number' ? scored.slice(0, body.top_n) : scored;
  return { kind: 'json', status: 200, body: { id: `rerank-FakeUpstream${context.sequence}`, model: body.model, results, usage: { total_tokens: options.promptTokens } } };
}

const fakeModels = ['gpt-4o-mini', 'gpt-4.1-nano', 'gpt-3.5-turbo-instruct', 'text-embedding-3-small', 'omni-moderation-latest', 'rerank-v3.5'].map((id) => ({
  id, object: 'model', created: 1_700_000_000, owned_by: 'system',
}));

function retrieveModel(id: string): Reply {
  const model = fakeModels.find((candidate) => candidate.id === id);
  if (model !== undefined) return { kind: 'json', status: 200, body: model };
  return openaiError(404, `The model '${id}' does not exist`, 'invalid_request_error', 'model', 'model_not_found');
}

// ---- Errors and auth (bodies as OpenAI sends them, see protocols.md §11) ----

function openaiError(status: number, message: string, type: string, param: string | null, code: string | null): Reply {
  return { kind: 'json', status, body: { error: { message, type, param, code } } };
}

function defaultErrorBody(status: number): unknown {
  const byStatus: Record<number, [string, string, string | null]> = {
    400: ['Invalid request.', 'invalid_request_error', null],
    401: ['Incorrect API key provided: sk-fake*******************************0000. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_request_error', 'invalid_api_key'],
    403: ['Country, region, or territory not supported', 'request_forbidden', 'unsupported_country_region_territory'],
    404: ['The model does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found'],
    429: ['Rate limit reached for requests. Please try again in 1s.', 'requests', 'rate_limit_exceeded'],
    503: ['The server is overloaded or not ready yet.', 'server_error', 'server_is_overloaded'],
  };
  const [message, type, code] = byStatus[status] ?? ['The server had an error while processing your request. Sorry about that!', 'server_error', null];
  return { error: { message, type, param: null, code } };
}

const missingKeyMessage =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.";

function checkAuthorization(authorization: string | undefined, expectedKeys: string[] | undefined): Reply | undefined {
  if (expectedKeys === undefined) return undefined;
  const key = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length).trim() : '';
  if (key === '') return openaiError(401, missingKeyMessage, 'invalid_request_error', null, null);
  if (expectedKeys.includes(key)) return undefined;
  // OpenAI shows the first 8 and last 4 characters: "sk-XG6GW*****…*****wlmi".
  const masked = key.length > 12 ? `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}` : `${key.slice(0, 3)}***`;
  return openaiError(401, `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', null, 'invalid_api_key');
}

// ---- Serializing replies as OpenAI does ----

function jsonHeaders(sequence: number, text: string): Record<string, string> {
  return { 'content-length': String(Buffer.byteLength(text)), 'x-request-id': `req_fake${sequence}`, 'openai-processing-ms': '1', 'openai-version': '2020-10-01' };
}

function formatJson(reply: Extract<Reply, { kind: 'json' }>, sequence: number): WireReply {
  // OpenAI pretty-prints JSON bodies: 2 spaces for results, 4 for errors.
  const isError = reply.status >= 400;
  const text = `${JSON.stringify(reply.body, null, isError ? 4 : 2)}\n`;
  return { kind: 'whole', status: reply.status, headers: { 'content-type': isError ? 'application/json; charset=utf-8' : 'application/json', ...jsonHeaders(sequence, text) }, text };
}

function formatStream(payloads: Json[], context: Omit<Context, 'body'>): WireReply {
  const events = [...payloads.map((payload) => JSON.stringify(payload)), '[DONE]'];
  return {
    kind: 'stream',
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': `req_fake${context.sequence}`, 'openai-processing-ms': '1', 'openai-version': '2020-10-01' },
    pieces: events.map((data) => `data: ${data}\n\n`),
    chunkDelayMs: context.options.chunkDelayMs,
  };
}

// ---- Small helpers ----

function words(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');
}
