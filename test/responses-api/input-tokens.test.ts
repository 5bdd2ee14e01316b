import { countTokens } from 'gpt-tokenizer';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGeminiUpstream, type FakeGeminiUpstream } from '../fakes/fake-gemini-upstream.js';
import { startFakeOpenaiResponsesUpstream, type FakeOpenaiResponsesUpstream } from '../fakes/fake-openai-responses-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/**
 * `POST /v1/responses/input_tokens` through the `openai` SDK's `responses.inputTokens.count` (docs/behaviour.md
 * "Styles and conversion"): counted by the gateway (exact o200k, 4 per message) on an OpenAI Responses
 * channel and on any other, with no upstream call, no charge and no log row; one request against the key's
 * rpm. Refusals come in OpenAI's envelope, as `responses.create` gives them.
 */
const callerKey = `sk-${'c'.repeat(48)}`;
const limitedKey = `sk-${'l'.repeat(48)}`;
const rpmKey = `sk-${'r'.repeat(48)}`;
const responsesChannelKey = 'sk-responses-channel-0001';
const responsesModel = 'count-responses';
const geminiModel = 'count-gemini';
const price = { input: 3, output: 15 };

let gateway: TestGateway;
let responsesUpstream: FakeOpenaiResponsesUpstream;
let geminiUpstream: FakeGeminiUpstream;

beforeAll(async () => {
  responsesUpstream = await startFakeOpenaiResponsesUpstream(responsesChannelKey);
  geminiUpstream = await startFakeGeminiUpstream();
  const channel = { groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, model_mapping: {} };
  gateway = await startTestGateway({
    config: {
      prices: { [responsesModel]: price, [geminiModel]: price },
      channels: [
        { ...channel, name: 'responses', type: 'openai', base_url: responsesUpstream.url, key: responsesChannelKey, models: [responsesModel, 'unpriced-responses'], settings: { api: 'responses' } },
        { ...channel, name: 'gemini', type: 'gemini', base_url: geminiUpstream.url, key: 'gemini-channel-key', models: [geminiModel], settings: {} },
      ],
      users: [{ username: 'payer', role: 'user', group: 'default', enabled: true, quota: 10_000_000 }],
      tokens: [
        { name: 'payer-key', user: 'payer', key: callerKey, expires_at: 0, enabled: true, quota: 10_000_000 },
        { name: 'limited-key', user: 'payer', key: limitedKey, expires_at: 0, enabled: true, quota: 10_000_000, model_limits: [geminiModel] },
        { name: 'rpm-key', user: 'payer', key: rpmKey, expires_at: 0, enabled: true, quota: 10_000_000, rate_limit: { rpm: 2 } },
      ],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await responsesUpstream?.close();
  await geminiUpstream?.close();
});

const sdk = (apiKey = callerKey) => new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const tokens = (text: string) => (text === '' ? 0 : countTokens(text));
const upstreamCalls = () => responsesUpstream.requests.length + geminiUpstream.requests.length;

async function books(): Promise<{ quota: number[]; logs: number }> {
  await gateway.settled();
  const db = gateway.gateway.services.database.db;
  const rows = await db.selectFrom('tokens').select(['remain_quota']).orderBy('id').execute();
  const logs = await db.selectFrom('logs').select('id').execute();
  return { quota: rows.map((row) => Number(row.remain_quota)), logs: logs.length };
}

function postCount(body: unknown, headers: Record<string, string> = { authorization: `Bearer ${callerKey}` }): Promise<Response> {
  return fetch(`${gateway.url}/v1/responses/input_tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('responses.inputTokens.count', () => {
  it.each([
    ['an OpenAI Responses channel', responsesModel],
    ['a Gemini channel', geminiModel],
  ])("on %s: OpenAI's answer shape, counted locally (o200k + 4 per message), no upstream call, no charge, no log row", async (_name, model) => {
    const before = await books();
    const calls = upstreamCalls();
    const text = 'How many tokens is this sentence?';
    const { data, response } = await sdk().responses.inputTokens.count({ model, input: text }).withResponse();
    expect(data).toEqual({ object: 'response.input_tokens', input_tokens: tokens(text) + 4 });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(upstreamCalls()).toBe(calls);
    expect(await books()).toEqual(before);
  });

  it('counts instructions, input items and tools, and ignores a max_output_tokens or stream', async () => {
    const plain = await sdk().responses.inputTokens.count({ model: responsesModel, input: 'Hi' });
    const instructions = 'You are a very long system prompt about the weather in many cities.';
    const fuller = await sdk().responses.inputTokens.count({
      model: responsesModel,
      instructions,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
      tools: [{ type: 'function', name: 'get_weather', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
    });
    expect(fuller.input_tokens).toBeGreaterThan(plain.input_tokens + tokens(instructions));
    const stray = await postCount({ model: responsesModel, input: 'Hi', max_output_tokens: 0, stream: true });
    expect(stray.status).toBe(200);
    expect(await stray.json()).toEqual(plain);
  });

  it('counts against the key rpm (the exact count is the gateway CPU): the third count in a minute is the SDK RateLimitError', async () => {
    const client = sdk(rpmKey);
    const count = () => client.responses.inputTokens.count({ model: responsesModel, input: 'x' }).withResponse();
    const answers = [await count(), await count()];
    expect(answers.map(({ data }) => data.input_tokens)).toEqual([tokens('x') + 4, tokens('x') + 4]);
    expect(answers.map(({ response }) => response.headers.get('x-ratelimit-remaining-requests'))).toEqual(['1', '0']);
    await expect(count()).rejects.toBeInstanceOf(OpenAI.RateLimitError);
  });
});

describe('responses.inputTokens.count refusals, in the envelope /v1/responses uses', () => {
  it('a bad key is the SDK AuthenticationError', async () => {
    const wrong = `sk-${'w'.repeat(48)}`;
    await expect(sdk(wrong).responses.inputTokens.count({ model: responsesModel, input: 'x' })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('an unknown model answers as responses.create does', async () => {
    type ApiError = InstanceType<typeof OpenAI.APIError>;
    const created = (await sdk().responses.create({ model: 'no-such-model', input: 'x' }).catch((caught: unknown) => caught)) as ApiError;
    const counted = (await sdk().responses.inputTokens.count({ model: 'no-such-model', input: 'x' }).catch((caught: unknown) => caught)) as ApiError;
    expect(created).toBeInstanceOf(OpenAI.APIError);
    expect(counted).toBeInstanceOf(OpenAI.BadRequestError);
    expect(counted.status).toBe(created.status);
    const withoutRequestId = (error: ApiError) => ({ ...(error.error as { message: string }), message: (error.error as { message: string }).message.replace(/ \(request id: \w+\)$/, '') });
    expect(withoutRequestId(counted)).toEqual(withoutRequestId(created));
    expect(withoutRequestId(counted)).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
  });

  it('a model outside the key model_limits is the SDK PermissionDeniedError; an unpriced model a 400', async () => {
    await expect(sdk(limitedKey).responses.inputTokens.count({ model: responsesModel, input: 'x' })).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((await sdk(limitedKey).responses.inputTokens.count({ model: geminiModel, input: 'x' })).input_tokens).toBe(tokens('x') + 4);
    const unpriced = await postCount({ model: 'unpriced-responses', input: 'x' });
    expect(unpriced.status).toBe(400);
    expect(await unpriced.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringContaining('unpriced-responses') } });
  });

  it('a malformed body is a 400 invalid_request_error naming what is wrong, before any upstream call', async () => {
    const calls = upstreamCalls();
    const cases: Array<[unknown, string]> = [
      ['{not json', ''],
      [[1, 2], ''],
      [{ input: 'x' }, 'model'],
      [{ model: responsesModel }, 'input'],
      [{ model: responsesModel, input: [{ role: 'robot', content: 'x' }] }, 'role'],
    ];
    for (const [body, named] of cases) {
      const response = await postCount(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const answer = (await response.json()) as { error: { type: string; message: string } };
      expect(answer).toMatchObject({ error: { type: 'invalid_request_error' } });
      expect(answer.error.message).toContain(named);
    }
    expect(upstreamCalls()).toBe(calls);
  });
});
