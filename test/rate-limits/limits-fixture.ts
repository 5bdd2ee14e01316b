/**
 * The rate limits end to end (docs/behaviour.md "Rate limits"): the real gateway (SQLite, in-memory limiter)
 * in front of one scripted upstream per vendor style (test/fakes/scripted-upstream.ts, replies from
 * test/fakes/scripted-vendor-wire.ts), with rate limits configured per token, per user and per IP, an
 * optional controllable clock (the gateway's `now`, which the limiter reads), and readers for balances,
 * reservations, logs and upstream calls. The OpenAI channel also serves completions, embeddings,
 * moderations and rerank.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { expect } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { startScriptedUpstream, type ScriptedReply, type ScriptedRequest, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { replyAsAsked, wireStyles, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { channelConfig, modelOf, modelPrice, type SdkClients } from '../billing-edges/billing-fixture.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

export { modelOf } from '../billing-edges/billing-fixture.js';
export const styles: WireStyle[] = wireStyles;

/** Two keys of the paying user, and one key of another user. */
export const payerKey = `sk-${'p'.repeat(48)}`;
export const payerKey2 = `sk-${'r'.repeat(48)}`;
export const otherKey = `sk-${'o'.repeat(48)}`;
export const loginPassword = 'payer-password';

/** OpenAI-only endpoints' models, on the openai-chat channel. */
export const endpointModels = { completions: 'billed-instruct', embeddings: 'billed-embed', moderations: 'omni-moderation-latest', rerank: 'billed-rerank' } as const;
/** Listed by the OpenAI channel, priced nowhere. */
export const unpricedModel = 'unpriced-model';

type RateLimit = { rpm?: number; tpm?: number };

export interface LimitsFixtureOptions {
  /** `rate_limit` of payerKey (payerKey2 and otherKey have none unless `rateLimitAll`). */
  tokenRateLimit?: RateLimit;
  /** The same `rate_limit` on every key. */
  rateLimitAll?: RateLimit;
  rateLimits?: ConfigFile['rate_limits'];
  /** payerKey's quota; undefined = unlimited. */
  tokenQuota?: number;
  userQuota?: number;
  /** A second (lower priority) channel of each style. */
  fallbacks?: boolean;
  retryTimes?: number;
  /** payerKey's model_limits. */
  modelLimits?: string[];
  /** Gateway environment (e.g. TRUST_PROXY). */
  env?: Record<string, string>;
}

export interface LimitsFixture {
  gateway: TestGateway;
  url: string;
  primary: Record<WireStyle, ScriptedUpstream>;
  fallback: Record<WireStyle, ScriptedUpstream> | undefined;
  /** Moves the gateway's clock (the limiter's windows) forward. */
  advance(ms: number): void;
  sdk(key?: string): SdkClients;
  upstreamCalls(): number;
  settled(): Promise<void>;
  balances(tokenName?: string): Promise<{ tokenRemain: number; tokenUsed: number; userQuota: number; userUsed: number }>;
  reservations(): Promise<{ id: string; amount: number; state: string; settled_amount: number | null }[]>;
  logs(): Promise<any[]>;
  close(): Promise<void>;
}

/** The OpenAI channel answers each endpoint in its own shape; text answers are "Hello" with 10 + 1 tokens. */
function openaiAnswer(request: ScriptedRequest): ScriptedReply {
  const model = (request.body as any)?.model ?? 'm';
  switch (request.path) {
    case '/v1/embeddings':
      return { json: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3] }], model, usage: { prompt_tokens: 3, total_tokens: 3 } } };
    case '/v1/moderations':
      return { json: { id: 'modr-1', model, results: [{ flagged: false, categories: {}, category_scores: {} }] } };
    case '/v1/rerank':
      return { json: { id: 'rr-1', results: [{ index: 0, relevance_score: 0.9 }], usage: { total_tokens: 5 } } };
    case '/v1/completions':
      return { json: { id: 'cmpl-1', object: 'text_completion', created: 1760000000, model, choices: [{ text: 'Hi', index: 0, logprobs: null, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } } };
    default:
      return replyAsAsked('openai-chat', { text: ['Hello'], usage: { input: 10, output: 1 } })(request);
  }
}

export function defaultAnswer(style: WireStyle): (request: ScriptedRequest) => ScriptedReply {
  return style === 'openai-chat' ? openaiAnswer : replyAsAsked(style, { text: ['Hello'], usage: { input: 10, output: 1 } });
}

async function startUpstreams(): Promise<Record<WireStyle, ScriptedUpstream>> {
  const upstreams = {} as Record<WireStyle, ScriptedUpstream>;
  for (const style of styles) upstreams[style] = await startScriptedUpstream({ fallback: defaultAnswer(style) });
  return upstreams;
}

export async function startLimitsFixture(options: LimitsFixtureOptions = {}): Promise<LimitsFixture> {
  const primary = await startUpstreams();
  const fallback = options.fallbacks ? await startUpstreams() : undefined;
  let offset = 0;
  const channelOf = (name: string, style: WireStyle, url: string, priority: number) =>
    channelConfig(name, style, url, priority, style === 'openai-chat' ? [modelOf[style], ...Object.values(endpointModels), unpricedModel] : [modelOf[style]]);
  const channels = styles.map((style) => channelOf(`primary-${style}`, style, primary[style].url, 10));
  if (fallback) for (const style of styles) channels.push(channelOf(`fallback-${style}`, style, fallback[style].url, 0));
  const prices: NonNullable<ConfigFile['prices']> = Object.fromEntries(Object.values(modelOf).map((model) => [model, { ...modelPrice }]));
  prices[endpointModels.completions] = { ...modelPrice };
  prices[endpointModels.embeddings] = { input: 0.02 };
  prices[endpointModels.moderations] = { per_call: 0.002 };
  prices[endpointModels.rerank] = { per_call: 0.004 };
  const rateLimitOf = (key: string) => {
    const limit = options.rateLimitAll ?? (key === payerKey ? options.tokenRateLimit : undefined);
    return limit === undefined ? {} : { rate_limit: limit };
  };
  const config: ConfigFile = {
    ...(options.retryTimes === undefined ? {} : { retry_times: options.retryTimes }),
    ...(options.rateLimits === undefined ? {} : { rate_limits: options.rateLimits }),
    prices,
    channels,
    users: [
      { username: 'payer', password: loginPassword, role: 'user', group: 'default', enabled: true, quota: options.userQuota ?? 100_000_000 },
      { username: 'other', role: 'user', group: 'default', enabled: true, quota: 100_000_000 },
    ],
    tokens: [
      {
        name: 'payer-key',
        user: 'payer',
        key: payerKey,
        expires_at: 0,
        enabled: true,
        ...(options.tokenQuota === undefined ? { unlimited_quota: true } : { quota: options.tokenQuota }),
        ...(options.modelLimits === undefined ? {} : { model_limits: options.modelLimits }),
        ...rateLimitOf(payerKey),
      },
      { name: 'payer-key-2', user: 'payer', key: payerKey2, expires_at: 0, enabled: true, unlimited_quota: true, ...rateLimitOf(payerKey2) },
      { name: 'other-key', user: 'other', key: otherKey, expires_at: 0, enabled: true, unlimited_quota: true, ...rateLimitOf(otherKey) },
    ],
  };
  const gateway = await startTestGateway({ config, env: options.env ?? {}, now: () => Date.now() + offset });
  const { db } = gateway.gateway.services.database;
  const all = () => [...Object.values(primary), ...(fallback ? Object.values(fallback) : [])];
  return {
    gateway,
    url: gateway.url,
    primary,
    fallback,
    advance: (ms) => void (offset += ms),
    sdk: (key = payerKey) => ({
      openai: new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 }),
      anthropic: new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 }),
      gemini: new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } }),
    }),
    upstreamCalls: () => all().reduce((sum, upstream) => sum + upstream.requests.length, 0),
    settled: () => gateway.settled(),
    async balances(tokenName = 'payer-key') {
      await gateway.settled();
      const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota', 'user_id']).where('name', '=', tokenName).executeTakeFirstOrThrow();
      const user = await db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', token.user_id).executeTakeFirstOrThrow();
      return { tokenRemain: Number(token.remain_quota), tokenUsed: Number(token.used_quota), userQuota: Number(user.quota), userUsed: Number(user.used_quota) };
    },
    async reservations() {
      await gateway.settled();
      const rows = await db.selectFrom('quota_reservations').select(['id', 'amount', 'state', 'settled_amount']).orderBy('created_at').execute();
      return rows.map((row) => ({ id: row.id, amount: Number(row.amount), state: row.state, settled_amount: row.settled_amount === null ? null : Number(row.settled_amount) }));
    },
    async logs() {
      await gateway.settled();
      return db.selectFrom('logs').selectAll().orderBy('id').execute();
    },
    async close() {
      await gateway.close();
      for (const upstream of all()) await upstream.close();
    },
  };
}

// ---------------------------------------------------------------- requests

/** The prompt every text request sends, and the gateway's admission estimate of it (1 + 2 + 4 framing). */
export const promptText = 'Say hello';
export const estimatedPrompt = 7;

/** Raw request of a style (for headers and precise control), with any key and extra headers. */
export function rawRequest(url: string, style: WireStyle, options: { key?: string; model?: string; stream?: boolean; maxTokens?: number; prompt?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const key = options.key ?? payerKey;
  const model = options.model ?? modelOf[style];
  const stream = options.stream ?? false;
  const prompt = options.prompt ?? promptText;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  let path: string;
  let body: Record<string, unknown>;
  switch (style) {
    case 'openai-chat':
      headers.authorization = `Bearer ${key}`;
      path = '/v1/chat/completions';
      body = { model, stream, messages: [{ role: 'user', content: prompt }], ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }) };
      break;
    case 'openai-responses':
      headers.authorization = `Bearer ${key}`;
      path = '/v1/responses';
      body = { model, stream, input: [{ role: 'user', content: prompt }], ...(options.maxTokens === undefined ? {} : { max_output_tokens: options.maxTokens }) };
      break;
    case 'anthropic':
      headers['x-api-key'] = key;
      headers['anthropic-version'] = '2023-06-01';
      path = '/v1/messages';
      body = { model, stream, max_tokens: options.maxTokens ?? 4096, messages: [{ role: 'user', content: prompt }] };
      break;
    case 'gemini':
      headers['x-goog-api-key'] = key;
      path = `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
      body = { contents: [{ role: 'user', parts: [{ text: prompt }] }], ...(options.maxTokens === undefined ? {} : { generationConfig: { maxOutputTokens: options.maxTokens } }) };
      break;
  }
  return fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** Sends the prompt through the style's official SDK; resolves to the error the SDK raised, or undefined when served. */
export async function sdkSend(sdk: SdkClients, style: WireStyle, options: { model?: string; stream?: boolean; maxTokens?: number; prompt?: string } = {}): Promise<unknown> {
  const model = options.model ?? modelOf[style];
  const prompt = options.prompt ?? promptText;
  const max = options.maxTokens;
  try {
    switch (style) {
      case 'openai-chat': {
        const body = { model, messages: [{ role: 'user' as const, content: prompt }], ...(max === undefined ? {} : { max_tokens: max }) };
        if (options.stream) for await (const _chunk of await sdk.openai.chat.completions.create({ ...body, stream: true }));
        else await sdk.openai.chat.completions.create(body);
        return undefined;
      }
      case 'openai-responses': {
        const body = { model, input: [{ role: 'user' as const, content: prompt }], ...(max === undefined ? {} : { max_output_tokens: max }) };
        if (options.stream) for await (const _event of await sdk.openai.responses.create({ ...body, stream: true }));
        else await sdk.openai.responses.create(body);
        return undefined;
      }
      case 'anthropic': {
        const body = { model, max_tokens: max ?? 4096, messages: [{ role: 'user' as const, content: prompt }] };
        if (options.stream) for await (const _event of await sdk.anthropic.messages.create({ ...body, stream: true }));
        else await sdk.anthropic.messages.create(body);
        return undefined;
      }
      case 'gemini': {
        const params = { model, contents: [{ role: 'user', parts: [{ text: prompt }] }], ...(max === undefined ? {} : { config: { maxOutputTokens: max } }) };
        if (options.stream) for await (const _chunk of await sdk.gemini.models.generateContentStream(params));
        else await sdk.gemini.models.generateContent(params);
        return undefined;
      }
    }
  } catch (error) {
    return error;
  }
}

/** The 429 each SDK raises, in the style's own envelope (docs/behaviour.md "Errors"). */
export function expectRateLimitError(style: WireStyle, error: any): void {
  expect(error, 'the request should have been refused').toBeDefined();
  expect(error.status).toBe(429);
  switch (style) {
    case 'openai-chat':
    case 'openai-responses':
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect(error.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', message: expect.stringContaining('Rate limit') });
      expect(Number(error.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      return;
    case 'anthropic':
      expect(error).toBeInstanceOf(Anthropic.RateLimitError);
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: expect.stringContaining('Rate limit') } });
      expect(Number(error.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      return;
    case 'gemini': {
      const message = String(error.message);
      expect(JSON.parse(message.slice(message.indexOf('{')))).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('Rate limit') } });
      return;
    }
  }
}

/** Seconds of a Go duration such as `45s`, `1m0s`. */
export function durationSeconds(value: string | null): number {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(\d+)s$/.exec(value ?? '');
  if (match === null) throw new Error(`not a Go duration: ${value}`);
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3]);
}
