/**
 * The real gateway (SQLite) in front of two scripted upstreams (test/fakes/scripted-upstream.ts): `chat`
 * behind an OpenAI channel (chat, completions, embeddings, moderations, rerank; two mapped aliases) and
 * `resp` behind an OpenAI channel with `settings.api: responses`. Replies are queued as the exact bytes
 * the upstream writes; `rawBody` on a recorded request is what the gateway sent. Expected charges are
 * computed here from docs/behaviour.md "Billing", never read from the gateway.
 */
import type { Selectable } from 'kysely';
import OpenAI from 'openai';
import { countTokens } from 'gpt-tokenizer';
import type { LogsTable } from '../../src/storage/database-schema.js';
import { startScriptedUpstream, type ScriptedReply, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/** A whole answer written as exactly these pieces, as `application/json` unless `contentType` says otherwise. */
export const bytes = (pieces: string | string[], contentType = 'application/json'): ScriptedReply => ({ raw: typeof pieces === 'string' ? [pieces] : pieces, headers: { 'content-type': contentType } });
/** A JSON answer, compact (one write) or pretty-printed with a trailing newline as some upstreams send it. */
export const json = (body: unknown, pretty = false): ScriptedReply => (pretty ? bytes(`${JSON.stringify(body, null, 2)}\n`) : { json: body });
/** A stream written as exactly these pieces (`text/event-stream; charset=utf-8`). */
export const sse = (pieces: string[]): ScriptedReply => ({ raw: pieces });
/** `data:` frames, one per payload (strings as is), closed by `[DONE]` unless `done` is false. */
export const frames = (payloads: unknown[], done = true): string[] => [...payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`), ...(done ? ['data: [DONE]\n\n'] : [])];

/** $ per 1M tokens (or per call) in thousandths, to keep the arithmetic exact. */
export interface MilliPrice {
  input?: number;
  output?: number;
  cacheRead?: number;
  perCall?: number;
}
const quotaPerUnit = 500_000n;

/** docs/behaviour.md "Billing": rounded half up; a non-zero cost below one unit is 1. Cached tokens at `cacheRead`, else at `input`. */
export function expectedCharge(price: MilliPrice, usage: { input?: number; cacheRead?: number; output?: number } = {}, calls = 1): number {
  let numerator: bigint;
  let denominator: bigint;
  if (price.perCall !== undefined) {
    numerator = BigInt(price.perCall) * quotaPerUnit * BigInt(calls);
    denominator = 1000n;
  } else {
    const input = BigInt(usage.input ?? 0);
    const cacheRead = BigInt(usage.cacheRead ?? 0);
    const plain = input - cacheRead < 0n ? 0n : input - cacheRead;
    const milli = plain * BigInt(price.input ?? 0) + cacheRead * BigInt(price.cacheRead ?? price.input ?? 0) + BigInt(usage.output ?? 0) * BigInt(price.output ?? 0);
    numerator = milli * quotaPerUnit;
    denominator = 1000n * 1_000_000n;
  }
  if (numerator === 0n) return 0;
  const rounded = (2n * numerator + denominator) / (2n * denominator);
  return Number(rounded === 0n ? 1n : rounded);
}
/** Exact o200k count, as local counts are made. */
export const tokens = (text: string) => (text === '' ? 0 : countTokens(text));

export const priceMilli = {
  'cmp-model': { input: 3000, output: 15000 },
  'alias-cmp': { input: 3000, output: 15000 },
  'emb-model': { input: 2000, output: 50000 },
  'alias-emb': { input: 2000, output: 50000 },
  'chat-model': { input: 3000, output: 15000, cacheRead: 300 },
  'resp-model': { input: 3000, output: 15000, cacheRead: 300 },
  'resp-model-openai-compact': { input: 1000, output: 4000 },
  'omni-moderation-latest': { perCall: 2 },
  'mod-model': { perCall: 2 },
  'rr-model': { perCall: 4 },
  'rr-tok': { input: 2000 },
} satisfies Record<string, MilliPrice>;

function toConfigPrice(price: MilliPrice): Record<string, number> {
  const out: Record<string, number> = {};
  if (price.input !== undefined) out.input = price.input / 1000;
  if (price.output !== undefined) out.output = price.output / 1000;
  if (price.cacheRead !== undefined) out.cache_read = price.cacheRead / 1000;
  if (price.perCall !== undefined) out.per_call = price.perCall / 1000;
  return out;
}

export const clientKey = `sk-${'a'.repeat(48)}`;

export type LogEntry = Selectable<LogsTable>;

export interface EndpointsFixture {
  gateway: TestGateway;
  chat: ScriptedUpstream;
  resp: ScriptedUpstream;
  client: OpenAI;
  /** The newest log row, once everything settled. */
  lastLog(): Promise<LogEntry>;
  tokenUsed(): Promise<number>;
  /** Runs `run` and reads what it charged the key and the log row it left. */
  charged<T>(run: () => Promise<T>): Promise<{ result: T; charge: number; log: LogEntry }>;
  /** Raw POST with the client key; a string body is sent as is. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Forgets both upstreams' requests and queued replies. */
  reset(): void;
  close(): Promise<void>;
}

export async function startEndpointsFixture(options: { allowUnpriced?: boolean } = {}): Promise<EndpointsFixture> {
  const [chat, resp] = await Promise.all([startScriptedUpstream(), startScriptedUpstream()]);
  const chatModels = ['cmp-model', 'alias-cmp', 'emb-model', 'alias-emb', 'chat-model', 'omni-moderation-latest', 'mod-model', 'rr-model', 'rr-tok', 'unpriced-model'];
  const gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      ...(options.allowUnpriced ? { allow_unpriced_models: true } : {}),
      retry_times: 0,
      prices: Object.fromEntries(Object.entries(priceMilli).map(([model, price]) => [model, toConfigPrice(price)])),
      channels: [
        { name: 'chat-up', type: 'openai', base_url: chat.url, key: 'sk-up-chat', models: chatModels, groups: ['default'], priority: 0, weight: 1, model_mapping: { 'alias-cmp': 'cmp-upstream', 'alias-emb': 'emb-upstream' }, enabled: true, auto_disable: false, settings: {} },
        { name: 'resp-up', type: 'openai', base_url: resp.url, key: 'sk-up-resp', models: ['resp-model', 'resp-model-openai-compact'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: { api: 'responses' } },
      ],
      users: [{ username: 'caller', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'caller-key', user: 'caller', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
  const { db } = gateway.gateway.services.database;
  const client = new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const lastLog = async () => {
    await gateway.settled();
    return db.selectFrom('logs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
  };
  const tokenUsed = async () => {
    await gateway.settled();
    const row = await db.selectFrom('tokens').select(['used_quota']).where('name', '=', 'caller-key').executeTakeFirstOrThrow();
    return Number(row.used_quota);
  };
  return {
    gateway,
    chat,
    resp,
    client,
    lastLog,
    tokenUsed,
    async charged(run) {
      const before = await tokenUsed();
      const result = await run();
      const charge = (await tokenUsed()) - before;
      return { result, charge, log: await lastLog() };
    },
    post: (path, body, headers = {}) =>
      fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) }),
    reset() {
      for (const upstream of [chat, resp]) {
        upstream.clearQueue();
        upstream.requests.length = 0;
      }
    },
    async close() {
      await gateway.close();
      await Promise.all([chat.close(), resp.close()]);
    },
  };
}
