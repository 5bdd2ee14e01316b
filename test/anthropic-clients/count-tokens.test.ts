import Anthropic from '@anthropic-ai/sdk';
import { countTokens } from 'gpt-tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropicUpstream, type FakeAnthropicUpstream } from '../fakes/fake-anthropic-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/**
 * `POST /v1/messages/count_tokens` through `@anthropic-ai/sdk`'s `messages.countTokens` (docs/behaviour.md
 * "Styles and conversion"): an Anthropic channel's model is counted by the channel (its count path, the
 * model mapped, the channel's key); another channel's model is counted locally (exact o200k, 4 per
 * message) with no upstream call. Both count against the key's rpm; neither is charged or logged as a
 * charge. Refusals come in Anthropic's envelope, as /v1/messages gives them.
 */
const callerKey = `sk-${'c'.repeat(48)}`;
const limitedKey = `sk-${'l'.repeat(48)}`;
const rpmKey = `sk-${'r'.repeat(48)}`;
const localRpmKey = `sk-${'m'.repeat(48)}`;
const anthropicChannelKey = 'sk-ant-channel-key-000001';
const claudeModel = 'count-claude';
const claudeUpstreamModel = 'claude-upstream-9';
const chatModel = 'count-chat';
const price = { input: 3, output: 15 };

let gateway: TestGateway;
let anthropicUpstream: FakeAnthropicUpstream;
let openaiUpstream: FakeOpenaiUpstream;

beforeAll(async () => {
  anthropicUpstream = await startFakeAnthropicUpstream({ expectedKeys: [anthropicChannelKey], inputTokens: 42 });
  openaiUpstream = await startFakeOpenaiUpstream();
  const channel = { groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {} };
  gateway = await startTestGateway({
    config: {
      prices: { [claudeModel]: price, [chatModel]: price },
      channels: [
        { ...channel, name: 'claude', type: 'anthropic', base_url: anthropicUpstream.url, key: anthropicChannelKey, models: [claudeModel], model_mapping: { [claudeModel]: claudeUpstreamModel } },
        { ...channel, name: 'chat', type: 'openai', base_url: openaiUpstream.url, key: 'sk-openai-channel', models: [chatModel, 'unpriced-chat'], model_mapping: {} },
      ],
      users: [{ username: 'payer', role: 'user', group: 'default', enabled: true, quota: 10_000_000 }],
      tokens: [
        { name: 'payer-key', user: 'payer', key: callerKey, expires_at: 0, enabled: true, quota: 10_000_000 },
        { name: 'limited-key', user: 'payer', key: limitedKey, expires_at: 0, enabled: true, quota: 10_000_000, model_limits: [chatModel] },
        { name: 'rpm-key', user: 'payer', key: rpmKey, expires_at: 0, enabled: true, quota: 10_000_000, rate_limit: { rpm: 2 } },
        { name: 'local-rpm-key', user: 'payer', key: localRpmKey, expires_at: 0, enabled: true, quota: 10_000_000, rate_limit: { rpm: 2 } },
      ],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await anthropicUpstream?.close();
  await openaiUpstream?.close();
});

const sdk = (apiKey = callerKey) => new Anthropic({ apiKey, baseURL: gateway.url, maxRetries: 0 });
const tokens = (text: string) => (text === '' ? 0 : countTokens(text));

async function books(): Promise<{ quota: number[]; logs: number }> {
  await gateway.settled();
  const db = gateway.gateway.services.database.db;
  const rows = await db.selectFrom('tokens').select(['remain_quota']).orderBy('id').execute();
  const logs = await db.selectFrom('logs').select('id').execute();
  return { quota: rows.map((row) => Number(row.remain_quota)), logs: logs.length };
}

function postCount(body: unknown, headers: Record<string, string> = { 'x-api-key': callerKey }): Promise<Response> {
  return fetch(`${gateway.url}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('messages.countTokens on an Anthropic channel', () => {
  it("relays the channel's own count: its count path, the mapped model, the channel key, the client's anthropic-version and beta; no charge", async () => {
    const before = await books();
    const calls = anthropicUpstream.requests.length;
    const params = {
      model: claudeModel,
      system: 'You are terse.',
      messages: [{ role: 'user' as const, content: 'How many tokens is this sentence?' }],
      tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }],
    };
    const { data, response } = await sdk().messages.countTokens(params, { headers: { 'anthropic-beta': 'token-counting-2024-11-01' } }).withResponse();
    expect(data).toEqual({ input_tokens: 42 });
    expect(response.headers.get('request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(anthropicUpstream.requests.length).toBe(calls + 1);
    const sent = anthropicUpstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages/count_tokens');
    expect(sent.body).toEqual({ ...params, model: claudeUpstreamModel });
    expect(sent.headers['x-api-key']).toBe(anthropicChannelKey);
    expect(JSON.stringify(sent.headers)).not.toContain(callerKey);
    expect(sent.headers['anthropic-beta']).toBe('token-counting-2024-11-01');
    // SDK 1.x speaks API version 2026-10-21 (test/fakes/README.md): forwarded, not replaced by the default.
    expect(sent.headers['anthropic-version']).toBe('2026-10-21');
    expect(await books()).toEqual(before);
  });

  it("relays the channel's refusal in Anthropic's envelope (a max_tokens the count does not take)", async () => {
    const refused = await postCount({ model: claudeModel, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Extra inputs are not permitted' } });
  });

  it("a channel key the upstream rejects is the gateway's 502, not the client's 401", async () => {
    anthropicUpstream.enqueueFault({ kind: 'status', status: 401 });
    const error = await sdk().messages.countTokens({ model: claudeModel, messages: [{ role: 'user', content: 'x' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
  });

  it("a channel out of credit (Anthropic's 402 billing_error) is the gateway's 502 api_error, not the client's balance run out", async () => {
    anthropicUpstream.enqueueFault({ kind: 'status', status: 402 });
    const error = await sdk().messages.countTokens({ model: claudeModel, messages: [{ role: 'user', content: 'x' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(502);
    expect(apiError.error).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringContaining('out of credit') } });
  });

  it('counts against the key rpm (it uses the operator upstream account): the third count in a minute is the SDK RateLimitError, unsent', async () => {
    const client = sdk(rpmKey);
    const count = () => client.messages.countTokens({ model: claudeModel, messages: [{ role: 'user', content: 'x' }] }).withResponse();
    const remaining = [(await count()).response.headers.get('x-ratelimit-remaining-requests'), (await count()).response.headers.get('x-ratelimit-remaining-requests')];
    expect(remaining).toEqual(['1', '0']);
    const calls = anthropicUpstream.requests.length;
    await expect(count()).rejects.toBeInstanceOf(Anthropic.RateLimitError);
    expect(anthropicUpstream.requests.length).toBe(calls);
  });
});

describe('messages.countTokens on another channel type', () => {
  it('counts locally (exact o200k + 4 per message) with no upstream call, no charge and no log row', async () => {
    const before = await books();
    const text = 'How many tokens is this sentence?';
    const answer = await sdk().messages.countTokens({ model: chatModel, messages: [{ role: 'user', content: text }] });
    expect(answer).toEqual({ input_tokens: tokens(text) + 4 });
    expect(openaiUpstream.requests.length).toBe(0);
    expect(await books()).toEqual(before);
  });

  it('counts the system prompt and tools too, and ignores a max_tokens', async () => {
    const plain = await sdk().messages.countTokens({ model: chatModel, messages: [{ role: 'user', content: 'Hi' }] });
    const fuller = await postCount({
      model: chatModel,
      max_tokens: 10,
      system: 'You are a very long system prompt about the weather in many cities.',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    });
    expect(fuller.status).toBe(200);
    expect(((await fuller.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(plain.input_tokens + 20);
  });

  it('counts against the key rpm too (the exact count is the gateway CPU): the third count in a minute is the SDK RateLimitError', async () => {
    const client = sdk(localRpmKey);
    const count = () => client.messages.countTokens({ model: chatModel, messages: [{ role: 'user', content: 'x' }] }).withResponse();
    const answers = [await count(), await count()];
    expect(answers.map(({ data }) => data)).toEqual([{ input_tokens: tokens('x') + 4 }, { input_tokens: tokens('x') + 4 }]);
    expect(answers.map(({ response }) => response.headers.get('x-ratelimit-remaining-requests'))).toEqual(['1', '0']);
    await expect(count()).rejects.toBeInstanceOf(Anthropic.RateLimitError);
    expect(openaiUpstream.requests.length).toBe(0);
  });
});

describe('messages.countTokens refusals, in the envelope /v1/messages uses', () => {
  it('a bad key (x-api-key or Bearer) is the SDK AuthenticationError', async () => {
    const wrong = `sk-${'w'.repeat(48)}`;
    await expect(sdk(wrong).messages.countTokens({ model: chatModel, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    const bearer = await postCount({ model: chatModel, messages: [{ role: 'user', content: 'x' }] }, { authorization: `Bearer ${wrong}` });
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const good = await postCount({ model: chatModel, messages: [{ role: 'user', content: 'x' }] }, { authorization: `Bearer ${callerKey}` });
    expect(good.status).toBe(200);
  });

  it('an unknown model answers as messages.create does', async () => {
    const messages = [{ role: 'user' as const, content: 'x' }];
    type ApiError = InstanceType<typeof Anthropic.APIError>;
    const created = (await sdk().messages.create({ model: 'no-such-model', max_tokens: 10, messages }).catch((caught: unknown) => caught)) as ApiError;
    const counted = (await sdk().messages.countTokens({ model: 'no-such-model', messages }).catch((caught: unknown) => caught)) as ApiError;
    expect(created).toBeInstanceOf(Anthropic.APIError);
    expect(counted).toBeInstanceOf(Anthropic.APIError);
    expect(counted.status).toBe(created.status);
    expect(counted.status).toBe(400);
    expect(counted.error).toMatchObject({ type: 'error', error: { type: (created.error as { error: { type: string } }).error.type, message: expect.stringContaining('no-such-model') } });
  });

  it('a model outside the key model_limits is a 403 permission_error; an unpriced model a 400', async () => {
    await expect(sdk(limitedKey).messages.countTokens({ model: claudeModel, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(Anthropic.PermissionDeniedError);
    const unpriced = await postCount({ model: 'unpriced-chat', messages: [{ role: 'user', content: 'x' }] });
    expect(unpriced.status).toBe(400);
    expect(await unpriced.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('a malformed body is a 400 invalid_request_error naming what is wrong, before any upstream call', async () => {
    const calls = anthropicUpstream.requests.length;
    const cases: Array<[unknown, string]> = [
      ['{not json', ''],
      [[1, 2], ''],
      [{ model: claudeModel }, 'messages'],
      [{ messages: [{ role: 'user', content: 'x' }] }, 'model'],
      [{ model: claudeModel, messages: [{ role: 'robot', content: 'x' }] }, 'role'],
      [{ model: claudeModel, messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'text'],
    ];
    for (const [body, named] of cases) {
      const response = await postCount(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const answer = (await response.json()) as { type: string; error: { type: string; message: string } };
      expect(answer).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(answer.error.message).toContain(named);
    }
    expect(anthropicUpstream.requests.length).toBe(calls);
  });
});
