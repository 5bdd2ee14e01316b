/**
 * The gateway with one channel per upstream style, each in front of its own scripted upstream
 * (test/fakes/scripted-upstream.ts, replies from test/fakes/scripted-vendor-wire.ts), one paying user and
 * key, the documented price formula computed independently of src/billing, and two ways to call: the
 * official SDKs, and raw HTTP for the tests that must abort or read a body at a precise point.
 *
 * Formula (docs/behaviour.md "Billing"): per 1M tokens — uncached input × input, cache reads × cache_read,
 * cache writes × cache_write, output (reasoning included) × output; × group ratio × quota_per_unit; rounded
 * half up; a non-zero cost below one unit is 1.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { countTokens } from 'gpt-tokenizer';
import type { ChannelSettings, ConfigFile } from '../../src/config/config-file-schema.js';
import type { DialectName } from '../../src/storage/database-schema.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { replyAsAsked, wireStyles, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/** Client styles and upstream styles are the same four. */
export const styles: WireStyle[] = wireStyles;

/** One model per upstream style, so the model name picks the channel (and its style). */
export const modelOf: Record<WireStyle, string> = {
  'openai-chat': 'billed-chat',
  'openai-responses': 'billed-responses',
  anthropic: 'billed-claude',
  gemini: 'billed-gemini',
};

/** $ per 1M tokens, for every model; integers ×1000 below keep the arithmetic exact. */
export const modelPrice = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 } as const;
const priceMilli = { input: 3000n, output: 15000n, cacheRead: 300n, cacheWrite: 3750n };
export const quotaPerUnit = 500_000;

export interface UsageFacts {
  /** Total input tokens, cache reads and writes included. */
  input: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** Output tokens, reasoning included. */
  output: number;
}

/** The documented formula; `ratio` as numerator/denominator to stay exact. */
export function expectedCharge(usage: UsageFacts, ratio: [number, number] = [1, 1]): number {
  const cacheRead = BigInt(usage.cacheRead ?? 0);
  const cacheWrite = BigInt(usage.cacheWrite ?? 0);
  const plain = BigInt(Math.max(0, usage.input - (usage.cacheRead ?? 0) - (usage.cacheWrite ?? 0)));
  const costMilli = plain * priceMilli.input + cacheRead * priceMilli.cacheRead + cacheWrite * priceMilli.cacheWrite + BigInt(usage.output) * priceMilli.output;
  // quota = costMilli / 1000 $·tokens/M → / 1e6 → × 500 000 × ratio = costMilli × ratio / 2000.
  const numerator = costMilli * BigInt(quotaPerUnit) * BigInt(ratio[0]);
  const denominator = 1_000n * 1_000_000n * BigInt(ratio[1]);
  if (numerator === 0n) return 0;
  const rounded = (2n * numerator + denominator) / (2n * denominator);
  return Number(rounded === 0n ? 1n : rounded);
}

/** Exact o200k count, as the docs say local counts are made. */
export function tokens(text: string): number {
  return text === '' ? 0 : countTokens(text);
}

// ---------------------------------------------------------------- gateway fixture

export const callerKey = `sk-${'q'.repeat(48)}`;

export interface BillingFixtureOptions {
  tokenQuota?: number;
  /** `allow_unknown_conversations`: a `conversation` id made outside the gateway is claimed, not refused. */
  allowUnknownConversations?: boolean;
  /** undefined = unlimited token. */
  userQuota?: number;
  group?: string;
  groups?: Record<string, number>;
  /** A second (fallback, lower priority) channel of each style as well. */
  fallbacks?: boolean;
  env?: Record<string, string>;
  /** Price fields added to `modelPrice` for every model (e.g. `cache_write_1h`). */
  extraPrice?: Record<string, number>;
  /** `settings` of the primary channel of a style (e.g. an Anthropic channel's `max_tokens`). */
  channelSettings?: Partial<Record<WireStyle, ChannelSettings>>;
  /** `model_mapping` of the primary channel of a style. */
  modelMapping?: Partial<Record<WireStyle, Record<string, string>>>;
  /** The database the ledger is kept in (SQLite unless given; see test/support/test-databases.ts). */
  dialect?: DialectName;
}

export interface BillingFixture {
  gateway: TestGateway;
  /** The preferred channel's upstream of each style. */
  primary: Record<WireStyle, ScriptedUpstream>;
  fallback: Record<WireStyle, ScriptedUpstream> | undefined;
  channelIds: Record<string, number>;
  sdk: SdkClients;
  settled(): Promise<void>;
  /** What `run` cost the paying token, settled. */
  spent(run: () => Promise<unknown>): Promise<number>;
  balances(): Promise<{ tokenRemain: number; tokenUsed: number; userQuota: number; userUsed: number }>;
  reservations(): Promise<{ id: string; amount: number; state: string; settled_amount: number | null }[]>;
  logs(): Promise<any[]>;
  channels(): Promise<{ id: number; name: string; used_quota: number; request_count: number }[]>;
  close(): Promise<void>;
}

/** Unless a test queued another reply, every upstream answers "Hello" with 10 + 1 tokens, as the request asked. */
async function startUpstreams(): Promise<Record<WireStyle, ScriptedUpstream>> {
  const upstreams = {} as Record<WireStyle, ScriptedUpstream>;
  for (const style of styles) upstreams[style] = await startScriptedUpstream({ fallback: replyAsAsked(style, { text: ['Hello'], usage: { input: 10, output: 1 } }) });
  return upstreams;
}

/** A channel of the config file in front of a scripted upstream of `style` (a Responses one says so in its settings). */
export function channelConfig(name: string, style: WireStyle, url: string, priority: number, models: string[], group = 'default', settings: ChannelSettings = {}) {
  return {
    name,
    type: (style === 'openai-chat' || style === 'openai-responses' ? 'openai' : style) as 'openai' | 'anthropic' | 'gemini',
    base_url: url,
    key: 'sk-upstream',
    models,
    groups: [group],
    priority,
    weight: 1,
    model_mapping: {},
    enabled: true,
    auto_disable: false,
    settings: { ...(style === 'openai-responses' ? { api: 'responses' as const } : {}), ...settings },
  };
}

export async function startBillingFixture(options: BillingFixtureOptions = {}): Promise<BillingFixture> {
  const primary = await startUpstreams();
  const fallback = options.fallbacks ? await startUpstreams() : undefined;
  const group = options.group ?? 'default';
  const channelOf = (name: string, style: WireStyle, url: string, priority: number, settings?: ChannelSettings) =>
    channelConfig(name, style, url, priority, [modelOf[style]], group, settings);
  const channels = styles.map((style) => ({ ...channelOf(`primary-${style}`, style, primary[style].url, 10, options.channelSettings?.[style]), model_mapping: options.modelMapping?.[style] ?? {} }));
  if (fallback) for (const style of styles) channels.push(channelOf(`fallback-${style}`, style, fallback[style].url, 0));
  const config: ConfigFile = {
    prices: Object.fromEntries(Object.values(modelOf).map((model) => [model, { ...modelPrice, ...options.extraPrice }])),
    ...(options.groups ? { groups: options.groups } : {}),
    ...(options.allowUnknownConversations === undefined ? {} : { allow_unknown_conversations: options.allowUnknownConversations }),
    channels,
    users: [{ username: 'payer', role: 'user', group, enabled: true, ...(options.userQuota === undefined ? {} : { quota: options.userQuota }) }],
    tokens: [{ name: 'payer-key', user: 'payer', key: callerKey, expires_at: 0, enabled: true, ...(options.tokenQuota === undefined ? { unlimited_quota: true } : { quota: options.tokenQuota }) }],
  };
  const gateway = await startTestGateway({ env: options.env ?? {}, config, ...(options.dialect === undefined ? {} : { dialect: options.dialect }) });
  const { db } = gateway.gateway.services.database;
  const channelRows = await db.selectFrom('channels').select(['id', 'name']).execute();
  const channelIds = Object.fromEntries(channelRows.map((row) => [row.name, Number(row.id)]));
  const fixture: BillingFixture = {
    gateway,
    primary,
    fallback,
    channelIds,
    sdk: sdkClients(gateway.url),
    settled: () => gateway.settled(),
    async spent(run) {
      await gateway.settled();
      const before = (await fixture.balances()).tokenUsed;
      await run();
      await gateway.settled();
      return (await fixture.balances()).tokenUsed - before;
    },
    async balances() {
      const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota', 'user_id']).where('name', '=', 'payer-key').executeTakeFirstOrThrow();
      const user = await db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', token.user_id).executeTakeFirstOrThrow();
      return { tokenRemain: Number(token.remain_quota), tokenUsed: Number(token.used_quota), userQuota: Number(user.quota), userUsed: Number(user.used_quota) };
    },
    async reservations() {
      const rows = await db.selectFrom('quota_reservations').select(['id', 'amount', 'state', 'settled_amount']).orderBy('created_at').execute();
      return rows.map((row) => ({ id: row.id, amount: Number(row.amount), state: row.state, settled_amount: row.settled_amount === null ? null : Number(row.settled_amount) }));
    },
    async logs() {
      await gateway.settled();
      return db.selectFrom('logs').selectAll().orderBy('id').execute();
    },
    async channels() {
      const rows = await db.selectFrom('channels').select(['id', 'name', 'used_quota', 'request_count']).execute();
      return rows.map((row) => ({ id: Number(row.id), name: row.name, used_quota: Number(row.used_quota), request_count: Number(row.request_count) }));
    },
    async close() {
      await gateway.close();
      for (const upstream of Object.values(primary)) await upstream.close();
      if (fallback) for (const upstream of Object.values(fallback)) await upstream.close();
    },
  };
  return fixture;
}

// ---------------------------------------------------------------- the prompt every test sends

export const promptText = 'Say hello';
/** Exact prompt count per the docs: the text's o200k tokens + 4 per message. */
export const promptTokensExact = () => tokens(promptText) + 4;

// ---------------------------------------------------------------- clients: the official SDKs

export interface SdkClients {
  openai: OpenAI;
  anthropic: Anthropic;
  gemini: GoogleGenAI;
}

export function sdkClients(gatewayUrl: string): SdkClients {
  return {
    openai: new OpenAI({ apiKey: callerKey, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: callerKey, baseURL: gatewayUrl, maxRetries: 0 }),
    gemini: new GoogleGenAI({ apiKey: callerKey, httpOptions: { baseUrl: gatewayUrl } }),
  };
}

/**
 * Sends the prompt through the style's SDK (the same bodies as `buildClientRequest`) and returns the
 * answer's text; an error answer is raised by the SDK as its own error class.
 */
export async function sendWithSdk(sdk: SdkClients, style: WireStyle, model: string, stream: boolean, maxTokens: number | undefined): Promise<string> {
  switch (style) {
    case 'openai-chat': {
      const body = { model, messages: [{ role: 'user' as const, content: promptText }], ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }) };
      if (!stream) return (await sdk.openai.chat.completions.create(body)).choices[0]?.message.content ?? '';
      let text = '';
      for await (const chunk of await sdk.openai.chat.completions.create({ ...body, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
      return text;
    }
    case 'openai-responses': {
      const body = { model, input: [{ role: 'user' as const, content: promptText }], ...(maxTokens === undefined ? {} : { max_output_tokens: maxTokens }) };
      if (!stream) return (await sdk.openai.responses.create(body)).output_text;
      let text = '';
      for await (const event of await sdk.openai.responses.create({ ...body, stream: true })) if (event.type === 'response.output_text.delta') text += event.delta;
      return text;
    }
    case 'anthropic': {
      const body = { model, max_tokens: maxTokens ?? 4096, messages: [{ role: 'user' as const, content: promptText }] };
      if (!stream) return (await sdk.anthropic.messages.create(body)).content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      let text = '';
      for await (const event of await sdk.anthropic.messages.create({ ...body, stream: true })) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      }
      return text;
    }
    case 'gemini': {
      const params = { model, contents: [{ role: 'user', parts: [{ text: promptText }] }], ...(maxTokens === undefined ? {} : { config: { maxOutputTokens: maxTokens } }) };
      if (!stream) return (await sdk.gemini.models.generateContent(params)).text ?? '';
      let text = '';
      for await (const chunk of await sdk.gemini.models.generateContentStream(params)) text += chunk.text ?? '';
      return text;
    }
  }
}

// ---------------------------------------------------------------- clients: raw HTTP, to abort or cut precisely

export interface ClientRequest {
  url: string;
  init: RequestInit;
}

/** The request each style's SDK sends for the prompt, by hand (for `fetch` with an abort signal). */
export function buildClientRequest(gatewayUrl: string, style: WireStyle, model: string, stream: boolean, maxTokens: number | undefined, signal?: AbortSignal): ClientRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let url: string;
  let body: Record<string, unknown>;
  switch (style) {
    case 'openai-chat':
      headers.authorization = `Bearer ${callerKey}`;
      url = `${gatewayUrl}/v1/chat/completions`;
      body = { model, stream, messages: [{ role: 'user', content: promptText }], ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }) };
      break;
    case 'openai-responses':
      headers.authorization = `Bearer ${callerKey}`;
      url = `${gatewayUrl}/v1/responses`;
      body = { model, stream, input: [{ role: 'user', content: promptText }], ...(maxTokens === undefined ? {} : { max_output_tokens: maxTokens }) };
      break;
    case 'anthropic':
      headers['x-api-key'] = callerKey;
      headers['anthropic-version'] = '2023-06-01';
      url = `${gatewayUrl}/v1/messages`;
      body = { model, stream, max_tokens: maxTokens ?? 4096, messages: [{ role: 'user', content: promptText }] };
      break;
    case 'gemini':
      headers['x-goog-api-key'] = callerKey;
      url = `${gatewayUrl}/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
      body = { contents: [{ role: 'user', parts: [{ text: promptText }] }], ...(maxTokens === undefined ? {} : { generationConfig: { maxOutputTokens: maxTokens } }) };
      break;
  }
  return { url, init: { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) } };
}

/** The visible text of one SSE data payload of the given client style. */
export function textOfEvent(style: WireStyle, data: string): string {
  let json: any;
  try {
    json = JSON.parse(data);
  } catch {
    return '';
  }
  switch (style) {
    case 'openai-chat':
      return json?.choices?.[0]?.delta?.content ?? '';
    case 'openai-responses':
      return json?.type === 'response.output_text.delta' ? (json.delta ?? '') : '';
    case 'anthropic':
      return json?.type === 'content_block_delta' && json.delta?.type === 'text_delta' ? json.delta.text : '';
    case 'gemini':
      return (json?.candidates?.[0]?.content?.parts ?? []).map((part: any) => (part.thought ? '' : (part.text ?? ''))).join('');
  }
}

/**
 * Reads an SSE body until `enough(text)` (then cancels it) or its end; returns the text, the raw data
 * payloads, and whether the body ended on its own (`ended`) rather than by `enough` or a broken read.
 */
export async function readSse(response: Response, style: WireStyle, enough: (text: string) => boolean = () => false): Promise<{ text: string; events: string[]; ended: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let text = '';
  const events: string[] = [];
  for (;;) {
    const chunk = await reader.read().catch(() => undefined);
    if (chunk === undefined) return { text, events, ended: false };
    if (chunk.done) return { text, events, ended: true };
    buffered += decoder.decode(chunk.value, { stream: true }).replaceAll('\r\n', '\n');
    let boundary = buffered.indexOf('\n\n');
    while (boundary >= 0) {
      const event = buffered.slice(0, boundary);
      buffered = buffered.slice(boundary + 2);
      boundary = buffered.indexOf('\n\n');
      const data = event.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
      if (data === '') continue;
      events.push(data);
      text += textOfEvent(style, data);
      if (enough(text)) {
        void reader.cancel().catch(() => undefined);
        return { text, events, ended: false };
      }
    }
  }
}
