import { z } from 'zod';
import { maxOutputTokensLimit } from '../../canonical/canonical-request.js';
import type { UpstreamFailure } from '../../routing/classify-upstream-failure.js';
import type { UsageMeter } from '../usage-meter.js';
import { countFailedWebToolCall, webToolChannelFailure } from '../web/count-web-tool-call.js';
import { collectChatPromptText, collectInputText, type PromptText } from './collect-prompt-text.js';
import { echoedPromptOf, type EchoedPrompt } from './skip-echoed-prompt.js';

/**
 * The OpenAI-style relay endpoints as data (CONVENTIONS.md §11): upstream path, body shape (validated
 * loosely — unknown fields pass through untouched), and how to read the prompt and the output budget.
 */
export type OpenaiEndpointName = 'chat' | 'completions' | 'embeddings' | 'moderations' | 'rerank' | 'responses-compact' | 'web-reader' | 'web-search';

export interface OpenaiEndpoint {
  name: OpenaiEndpointName;
  upstreamPath: string;
  streams: boolean;
  schema: z.ZodType<Record<string, unknown>>;
  /** When the body names no model (moderations): the model asked of routing and pricing. */
  defaultModel?: string;
  /** Appended to the model name for routing and pricing (not sent upstream). */
  billingSuffix?: string;
  /** False: the upstream API has no `model` field (web reader and search); the model only routes and prices. */
  forwardsModel?: false;
  /** What a whole answer tells the meter, when it is not an OpenAI-style body with `usage`. */
  readWholeAnswer?: (answer: Buffer, meter: UsageMeter, contentType: string) => void;
  /** A 2xx answer that is really the channel's failure (a dead key, no balance): tried on another channel. */
  channelFailureIn?: (answer: Buffer, contentType: string) => UpstreamFailure | undefined;
  promptText(body: Record<string, unknown>): PromptText;
  /** The client's output budget; undefined = none given (the configured default applies); 0 = no output. */
  maxOutputTokens(body: Record<string, unknown>): number | undefined;
  /** How many choices one streamed answer holds (`n`, …); 1 unless set. */
  choicesMade?(body: Record<string, unknown>): number;
  /** False: the endpoint produces no output tokens (embeddings, moderations, rerank): reported ones are not billed. */
  billsOutput?: false;
  /** The prompt each choice's text starts with (legacy Completions `echo`): not output, left out of a local count. */
  echoedPrompt?(body: Record<string, unknown>): EchoedPrompt | undefined;
  /**
   * The output limit sent upstream when the client named none: the one its reservation covers, so an
   * upstream whose own default is larger (llama.cpp, vLLM: none) cannot produce more than was reserved.
   */
  defaultOutputLimit?(body: Record<string, unknown>): { field: string; tokens: number } | undefined;
}

const positiveInteger = z.number().int().nonnegative();
/**
 * A client's output limit: 0 is refused, as OpenAI refuses it. The gateway reserves no output for a 0, and a
 * Go server chained as a channel (new-api, one-api: `MaxTokens uint …omitempty`) drops it and applies no limit.
 */
const outputTokenLimit = z.number().int().positive().max(maxOutputTokensLimit);
/** OpenAI's limits on a legacy completion's `n` and `best_of`. */
const maxCompletionChoices = 128;
const maxCompletionBestOf = 20;
const model = z.string().min(1, 'model must not be empty');

/** The roles Chat Completions takes: spec §4.1's four, OpenAI's `developer`, and its deprecated `function`. */
export const chatMessageRoles = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
/** The most choices (`n`) a Chat request may ask for, as OpenAI allows. */
export const maxChatChoices = 128;

/** OpenAI's wording for a role it does not know, the role quoted back. */
export function unknownRoleMessage(role: unknown): string {
  const supported = chatMessageRoles.map((name) => `'${name}'`);
  return `Invalid value: '${String(role)}'. Supported values are: ${supported.slice(0, -1).join(', ')} and ${supported.at(-1)}.`;
}

const messageContent = z.union([z.string(), z.array(z.unknown())]);
const withContent = <Role extends string>(role: Role) => z.object({ role: z.literal(role), content: messageContent }).passthrough();
const withOptionalContent = <Role extends string>(role: Role) => z.object({ role: z.literal(role), content: messageContent.nullish() }).passthrough();
/** A message's role, then its content: a string or an array of parts, which only assistant and function turns may leave out. */
const chatMessage = z
  .object({ role: z.string().min(1) })
  .passthrough()
  .pipe(
    z.discriminatedUnion(
      'role',
      [withContent('system'), withContent('developer'), withContent('user'), withOptionalContent('assistant'), withContent('tool'), withOptionalContent('function')],
      { errorMap: (issue, context) => (issue.code === 'invalid_union_discriminator' ? { message: unknownRoleMessage((context.data as { role?: unknown }).role) } : { message: context.defaultError }) },
    ),
  );

const chatSchema = z
  .object({
    model,
    messages: z.array(chatMessage).min(1, 'messages must not be empty'),
    stream: z.boolean().optional(),
    max_tokens: outputTokenLimit.nullish(),
    max_completion_tokens: outputTokenLimit.nullish(),
    // The reservation covers n choices: a count the upstream would read differently must not reach it.
    n: z.number().int().positive().max(maxChatChoices).nullish(),
    tools: z.array(z.object({ type: z.string() }).passthrough()).nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullish(),
  })
  .passthrough();

const completionsSchema = z
  .object({
    model,
    prompt: z.union([z.string(), z.array(z.unknown())]),
    stream: z.boolean().optional(),
    max_tokens: outputTokenLimit.nullish(),
    // The reservation covers every completion made: counts an upstream would read differently must not reach it.
    n: z.number().int().positive().max(maxCompletionChoices).nullish(),
    best_of: z.number().int().positive().max(maxCompletionBestOf).nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullish(),
  })
  .passthrough()
  .refine((body) => body.best_of == null || body.best_of >= (body.n ?? 1), { message: 'best_of must be greater than or equal to n', path: ['best_of'] });

/**
 * OpenAI refuses an empty string to embed ("cannot be an empty string": `input: ""`, and `""` in a list, 400
 * "'$.input' is invalid") and an empty token list (the schema's `minItems: 1`): the gateway reserved for it
 * and sent it, and an OpenAI-compatible server that answered was paid for an embedding of nothing.
 */
const embeddingInput = z.union([z.string(), z.array(z.unknown()).min(1)]).superRefine((input, context) => {
  if (input === '') context.addIssue({ code: z.ZodIssueCode.custom, message: 'an empty string cannot be embedded' });
  if (!Array.isArray(input)) return;
  for (const [index, item] of input.entries()) {
    if (item === '') context.addIssue({ code: z.ZodIssueCode.custom, path: [index], message: 'an empty string cannot be embedded' });
    else if (Array.isArray(item) && item.length === 0) context.addIssue({ code: z.ZodIssueCode.custom, path: [index], message: 'an empty token array cannot be embedded' });
  }
});
const embeddingsSchema = z.object({ model, input: embeddingInput }).passthrough();
const moderationsSchema = z.object({ model: model.optional(), input: z.union([z.string(), z.array(z.unknown()), z.record(z.unknown())]) }).passthrough();
const rerankSchema = z
  .object({ model, query: z.string(), documents: z.array(z.unknown()).min(1), top_n: positiveInteger.optional(), return_documents: z.boolean().optional() })
  .passthrough();

const compactSchema = z.object({ model, input: z.union([z.string(), z.array(z.unknown())]).optional() }).passthrough();

const webReaderSchema = z.object({ url: z.string().min(1, 'url must not be empty') }).passthrough();
const webSearchSchema = z.object({ query: z.string().min(1, 'query must not be empty'), count: z.number().int().min(1).max(50).optional() }).passthrough();

const noOutput = () => 0;

/**
 * How many completions a legacy Completions body makes: `best_of` (or `n`) per prompt, and a `prompt` that
 * is a list of strings or of token lists is that many prompts (a list of numbers is one tokenized prompt).
 */
function completionsMade(body: Record<string, unknown>): number {
  const perPrompt = Math.max(optionalNumber(body.n) ?? 1, optionalNumber(body.best_of) ?? 1);
  const prompt = body.prompt;
  const prompts = Array.isArray(prompt) && prompt.length > 0 && typeof prompt[0] !== 'number' ? prompt.length : 1;
  return perPrompt * prompts;
}
const noPrompt = () => ({ texts: [], extraTokens: 0 });
/** OpenAI's default `max_tokens` of a legacy completion. */
const completionsDefaultMaxTokens = 16;
const optionalNumber = (value: unknown) => (typeof value === 'number' ? value : undefined);
const largerLimit = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));

export const openaiEndpoints: Record<OpenaiEndpointName, OpenaiEndpoint> = {
  chat: {
    name: 'chat',
    upstreamPath: '/v1/chat/completions',
    streams: true,
    schema: chatSchema,
    promptText: collectChatPromptText,
    // Both given: the larger, since an upstream may read either (DeepSeek and most compatible servers read only max_tokens).
    maxOutputTokens: (body) => largerLimit(optionalNumber(body.max_completion_tokens), optionalNumber(body.max_tokens)),
    choicesMade: (body) => optionalNumber(body.n) ?? 1,
  },
  completions: {
    name: 'completions',
    upstreamPath: '/v1/completions',
    streams: true,
    schema: completionsSchema,
    promptText: (body) => collectInputText(body.prompt),
    // Per completion, for every completion made: max(n, best_of) of them for each prompt of a list.
    maxOutputTokens: (body) => (optionalNumber(body.max_tokens) ?? completionsDefaultMaxTokens) * completionsMade(body),
    defaultOutputLimit: (body) => (optionalNumber(body.max_tokens) === undefined ? { field: 'max_tokens', tokens: completionsDefaultMaxTokens } : undefined),
    choicesMade: completionsMade,
    echoedPrompt: echoedPromptOf,
  },
  embeddings: {
    name: 'embeddings',
    upstreamPath: '/v1/embeddings',
    streams: false,
    schema: embeddingsSchema,
    promptText: (body) => collectInputText(body.input),
    maxOutputTokens: noOutput,
    billsOutput: false,
  },
  moderations: {
    name: 'moderations',
    upstreamPath: '/v1/moderations',
    streams: false,
    schema: moderationsSchema,
    defaultModel: 'omni-moderation-latest',
    promptText: (body) => collectInputText(body.input),
    maxOutputTokens: noOutput,
    billsOutput: false,
  },
  rerank: {
    name: 'rerank',
    upstreamPath: '/v1/rerank',
    streams: false,
    schema: rerankSchema,
    promptText: (body) => collectInputText(body.query, body.documents),
    maxOutputTokens: noOutput,
    billsOutput: false,
  },
  'responses-compact': {
    name: 'responses-compact',
    upstreamPath: '/v1/responses/compact',
    streams: false,
    schema: compactSchema,
    billingSuffix: '-openai-compact',
    promptText: (body) => ({ texts: [`${typeof body.instructions === 'string' ? body.instructions : ''}\n${JSON.stringify(body.input ?? '')}`], extraTokens: 0 }),
    maxOutputTokens: () => undefined,
  },
  // Spec §4.5 / protocols.md §12: UniFuncs' web reader and search, behind a channel whose base URL is theirs.
  'web-reader': {
    name: 'web-reader',
    upstreamPath: '/api/web-reader/read',
    streams: false,
    schema: webReaderSchema,
    defaultModel: 'web-reader',
    forwardsModel: false,
    promptText: noPrompt,
    maxOutputTokens: noOutput,
    readWholeAnswer: countFailedWebToolCall,
    channelFailureIn: webToolChannelFailure,
  },
  'web-search': {
    name: 'web-search',
    upstreamPath: '/api/web-search/search',
    streams: false,
    schema: webSearchSchema,
    defaultModel: 'web-search',
    forwardsModel: false,
    promptText: noPrompt,
    maxOutputTokens: noOutput,
    readWholeAnswer: countFailedWebToolCall,
    channelFailureIn: webToolChannelFailure,
  },
};
