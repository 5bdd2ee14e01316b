import { expect } from 'vitest';
import { startFakeAnthropicUpstream, type FakeAnthropicUpstream } from '../fakes/fake-anthropic-upstream.js';
import { startFakeGeminiUpstream, type FakeGeminiUpstream } from '../fakes/fake-gemini-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { readAnswer } from '../support/read-answer.js';

/** Client keys of the fixture (48-char `sk-` keys, as the gateway generates), one per account state. */
export const keys = {
  good: `sk-${'g'.repeat(48)}`,
  disabled: `sk-${'d'.repeat(48)}`,
  expired: `sk-${'e'.repeat(48)}`,
  exhausted: `sk-${'z'.repeat(48)}`,
  restricted: `sk-${'r'.repeat(48)}`,
  disabledUser: `sk-${'u'.repeat(48)}`,
  poorUser: `sk-${'p'.repeat(48)}`,
  unknown: `sk-${'n'.repeat(48)}`,
} as const;

export const models = {
  chat: 'gpt-4o-mini',
  instruct: 'gpt-3.5-turbo-instruct',
  embedding: 'text-embedding-3-small',
  moderation: 'omni-moderation-latest',
  rerank: 'rerank-v1',
  claude: 'claude-sonnet-5-5',
  gemini: 'gemini-2.5-flash',
  /** Listed only by a channel of group `vip`: not usable by the default group. */
  vipOnly: 'gpt-vip-only',
} as const;

export interface BadInputFixture {
  gateway: TestGateway;
  url: string;
  openai: FakeOpenaiUpstream;
  anthropic: FakeAnthropicUpstream;
  gemini: FakeGeminiUpstream;
  upstreamCalls(): number;
  /** Every token's and user's balance as stored (after in-flight requests settle), and the open reservations. */
  balances(): Promise<{ tokens: unknown[]; users: unknown[]; openReservations: number }>;
  close(): Promise<void>;
}

/** Three fake upstreams (OpenAI, Anthropic, Gemini) behind a real gateway with `max_body_mb` 0.05 and one token per account state. */
export async function startBadInputFixture(): Promise<BadInputFixture> {
  const openai = await startFakeOpenaiUpstream({ expectedKeys: ['sk-openai-upstream'] });
  const anthropic = await startFakeAnthropicUpstream({ expectedKeys: ['sk-ant-upstream'] });
  const gemini = await startFakeGeminiUpstream({ expectedKeys: ['gemini-upstream-key'] });
  const channel = (name: string, type: 'openai' | 'anthropic' | 'gemini', url: string, key: string, channelModels: string[], groups = ['default']) => ({
    name, type, base_url: url, key, models: channelModels, groups, priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {},
  });
  const gateway = await startTestGateway({
    config: {
      max_body_mb: 0.05,
      groups: { default: 1, vip: 1 },
      prices: {
        [models.chat]: { input: 1, output: 2 },
        [models.instruct]: { input: 1, output: 2 },
        [models.embedding]: { input: 0.02 },
        [models.moderation]: { per_call: 0.001 },
        [models.rerank]: { per_call: 0.002 },
        [models.claude]: { input: 1, output: 2 },
        [models.gemini]: { input: 1, output: 2 },
        [models.vipOnly]: { input: 1, output: 2 },
      },
      channels: [
        channel('openai', 'openai', openai.url, 'sk-openai-upstream', [models.chat, models.instruct, models.embedding, models.moderation, models.rerank]),
        channel('openai-vip', 'openai', openai.url, 'sk-openai-upstream', [models.vipOnly], ['vip']),
        channel('anthropic', 'anthropic', anthropic.url, 'sk-ant-upstream', [models.claude]),
        channel('gemini', 'gemini', gemini.url, 'gemini-upstream-key', [models.gemini]),
      ],
      users: [
        { username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true },
        { username: 'bob', role: 'user', group: 'default', quota: 1_000_000_000, enabled: false },
        { username: 'carol', role: 'user', group: 'default', quota: 0, enabled: true },
      ],
      tokens: [
        { name: 'good', user: 'alice', key: keys.good, quota: 100_000_000, expires_at: 0, enabled: true },
        { name: 'disabled', user: 'alice', key: keys.disabled, quota: 100_000_000, expires_at: 0, enabled: false },
        { name: 'expired', user: 'alice', key: keys.expired, quota: 100_000_000, expires_at: 1_000_000, enabled: true },
        { name: 'exhausted', user: 'alice', key: keys.exhausted, quota: 0, expires_at: 0, enabled: true },
        { name: 'restricted', user: 'alice', key: keys.restricted, quota: 100_000_000, model_limits: [models.embedding], expires_at: 0, enabled: true },
        { name: 'disabled-user', user: 'bob', key: keys.disabledUser, quota: 100_000_000, expires_at: 0, enabled: true },
        { name: 'poor-user', user: 'carol', key: keys.poorUser, unlimited_quota: true, expires_at: 0, enabled: true },
      ],
    },
  });
  return {
    gateway,
    url: gateway.url,
    openai,
    anthropic,
    gemini,
    upstreamCalls: () => openai.requests.length + anthropic.requests.length + gemini.requests.length,
    balances: () => readBalances(gateway),
    async close() {
      await gateway.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    },
  };
}

/** Every token's and user's balance and the reservations left open, once the gateway settled what it served. */
export async function readBalances(gateway: TestGateway): Promise<{ tokens: unknown[]; users: unknown[]; openReservations: number }> {
  await gateway.settled();
  const { db } = gateway.gateway.services.database;
  const tokens = await db.selectFrom('tokens').select(['name', 'remain_quota', 'used_quota']).orderBy('name').execute();
  const users = await db.selectFrom('users').select(['username', 'quota', 'used_quota']).orderBy('username').execute();
  const open = await db.selectFrom('quota_reservations').select(['id']).where('state', '=', 'reserved').execute();
  return { tokens: tokens.map((row) => ({ ...row })), users: users.map((row) => ({ ...row })), openReservations: open.length };
}

export type Style = 'openai' | 'anthropic' | 'gemini' | 'api' | 'task' | 'mj';

export interface Sent {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** Sends one request; `auth` undefined = Bearer good key, null = no Authorization header. A form body sets its own content type. */
export async function send(
  fixture: { url: string },
  path: string,
  options: { method?: string; body?: string | Buffer | FormData; auth?: string | null; headers?: Record<string, string> } = {},
): Promise<Sent> {
  const headers: Record<string, string> = { ...(options.body instanceof FormData ? {} : { 'content-type': 'application/json' }), ...(options.headers ?? {}) };
  if (options.auth !== null) headers.authorization = `Bearer ${options.auth ?? keys.good}`;
  const response = await fetch(`${fixture.url}${path}`, { method: options.method ?? 'POST', headers, body: options.body });
  const answer = await readAnswer(response);
  return { status: answer.status, body: answer.json, text: answer.text, headers: answer.headers };
}

/** Anthropic's `error.type` and Google's `error.status` for each HTTP status the gateway answers (src/errors/render-error.ts). */
const anthropicTypes: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 402: 'billing_error', 403: 'permission_error', 404: 'not_found_error', 413: 'request_too_large', 503: 'overloaded_error' };
const geminiStatuses: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 402: 'RESOURCE_EXHAUSTED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 413: 'INVALID_ARGUMENT', 501: 'UNIMPLEMENTED', 503: 'UNAVAILABLE' };

/**
 * Asserts the error envelope of the style (docs/behaviour.md "Errors"): OpenAI `{error:{message,type,param,code}}`,
 * Anthropic `{type:"error",error:{type,message}}` with the type of the status, Gemini `{error:{code,message,status}}`
 * with the code and status of the HTTP status, `/api` `{success:false,message}`, the task routes'
 * `{code,message,data:null}`, Midjourney's `{code,description,type,result:null}` (code 3 for 404, 9 for a
 * server error, else 4). Returns the message.
 */
export function expectEnvelope(sent: Sent, style: Style): string {
  const { body } = sent;
  expect(body, `not JSON: ${sent.text.slice(0, 200)}`).toBeTypeOf('object');
  switch (style) {
    case 'openai':
      expect(body.error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
      expect(Object.keys(body.error)).toEqual(expect.arrayContaining(['param', 'code']));
      return body.error.message;
    case 'anthropic':
      expect(body).toMatchObject({ type: 'error', error: { type: anthropicTypes[sent.status] ?? 'api_error', message: expect.any(String) } });
      return body.error.message;
    case 'gemini':
      expect(body.error).toMatchObject({ code: sent.status, message: expect.any(String), status: geminiStatuses[sent.status] ?? 'INTERNAL' });
      return body.error.message;
    case 'api':
      expect(body).toMatchObject({ success: false, message: expect.any(String) });
      return body.message;
    case 'task':
      expect(body, JSON.stringify(body)).toMatchObject({ code: expect.any(String), message: expect.any(String), data: null });
      return body.message;
    case 'mj':
      expect(body, JSON.stringify(body)).toMatchObject({ code: sent.status === 404 ? 3 : sent.status >= 500 ? 9 : 4, description: expect.any(String), type: expect.any(String), result: null });
      return body.description;
  }
}

/** What {@link withoutCharge} reads of a fixture. */
export interface ChargeWatch {
  balances(): Promise<{ openReservations: number }>;
  upstreamCalls(): number;
}

/**
 * Runs `act`, then asserts that no token or user balance moved, no quota reservation is left open, and the
 * upstreams received `upstreamCalls` requests (none unless told).
 */
export async function withoutCharge<T>(fixture: ChargeWatch, act: () => Promise<T>, upstreamCalls = 0): Promise<T> {
  const before = await fixture.balances();
  const calls = fixture.upstreamCalls();
  const result = await act();
  const after = await fixture.balances();
  expect(fixture.upstreamCalls() - calls, 'upstream requests').toBe(upstreamCalls);
  expect(after.openReservations, 'open reservations').toBe(0);
  expect(after, 'balances').toEqual(before);
  return result;
}

/** Runs an SDK call that must be refused, under {@link withoutCharge}; returns what it threw (undefined if it resolved). */
export function refusal(fixture: BadInputFixture, request: () => PromiseLike<unknown>): Promise<unknown> {
  return withoutCharge(fixture, async () => {
    try {
      await request();
      return undefined;
    } catch (caught) {
      return caught;
    }
  });
}
