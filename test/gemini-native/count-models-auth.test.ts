import { ApiError, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, channelConfig, modelOf, modelPrice, styles, tokens } from '../billing-edges/billing-fixture.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { replyAsAsked, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { geminiRaw, sseData } from './gemini-support.js';

/**
 * :countTokens (docs/behaviour.md "Styles and conversion": answered locally, exact o200k, 4 per message,
 * 1000 per image, no upstream call, no charge; for a model the key may use, with the same 400 / 403 / 503
 * as :generateContent otherwise), GET /v1beta/models[/{model}] through the SDK (shape, paging, only the
 * models the key may use — priced, within model_limits), and the key in x-goog-api-key, ?key= or Bearer.
 */
const limitedKey = `sk-${'l'.repeat(48)}`;
const pagingModels = ['page-m1', 'page-m2', 'page-m3', 'page-m4', 'vendor/page-m5'];
let gateway: TestGateway;
let upstreams: Record<WireStyle, ScriptedUpstream>;
let sdk: GoogleGenAI;

beforeAll(async () => {
  upstreams = {} as Record<WireStyle, ScriptedUpstream>;
  for (const style of styles) upstreams[style] = await startScriptedUpstream({ fallback: replyAsAsked(style, { text: ['Hello'], usage: { input: 10, output: 1 } }) });
  const channels = styles.map((style) => channelConfig(`c-${style}`, style, upstreams[style].url, 10, style === 'openai-chat' ? [modelOf[style], 'unpriced-model', ...pagingModels] : [modelOf[style]]));
  gateway = await startTestGateway({
    config: {
      prices: Object.fromEntries([...Object.values(modelOf), ...pagingModels].map((model) => [model, { ...modelPrice }])),
      channels,
      users: [{ username: 'payer', role: 'user', group: 'default', enabled: true, quota: 10_000_000 }],
      tokens: [
        { name: 'payer-key', user: 'payer', key: callerKey, expires_at: 0, enabled: true, quota: 10_000_000 },
        { name: 'limited-key', user: 'payer', key: limitedKey, expires_at: 0, enabled: true, quota: 10_000_000, model_limits: [modelOf['openai-chat']] },
      ],
    },
  });
  sdk = new GoogleGenAI({ apiKey: callerKey, httpOptions: { baseUrl: gateway.url } });
});
afterAll(async () => {
  await gateway?.close();
  for (const upstream of Object.values(upstreams ?? {})) await upstream.close();
});

async function wallet(): Promise<number> {
  await gateway.settled();
  const row = await gateway.gateway.services.database.db.selectFrom('tokens').select(['remain_quota']).where('name', '=', 'payer-key').executeTakeFirstOrThrow();
  return Number(row.remain_quota);
}
const upstreamCalls = () => Object.values(upstreams).reduce((sum, upstream) => sum + upstream.requests.length, 0);
async function logCount(): Promise<number> {
  await gateway.settled();
  return (await gateway.gateway.services.database.db.selectFrom('logs').select('id').execute()).length;
}

describe(':countTokens', () => {
  for (const style of styles) {
    it(`models.countTokens for the ${style} channel's model: { totalTokens } = exact o200k + 4, no upstream call, no charge`, async () => {
      const [before, calls] = [await wallet(), upstreamCalls()];
      const answer = await sdk.models.countTokens({ model: modelOf[style], contents: 'How many tokens is this sentence?' });
      expect(answer.totalTokens).toBe(tokens('How many tokens is this sentence?') + 4);
      expect(upstreamCalls()).toBe(calls);
      expect(await wallet()).toBe(before);
    });
  }

  it('two turns and an inline image: 4 per message, 1000 per image', async () => {
    const answer = await sdk.models.countTokens({
      model: modelOf.gemini,
      contents: [
        { role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
        { role: 'model', parts: [{ text: 'A cat.' }] },
      ],
    });
    expect(answer.totalTokens).toBe(tokens('What is this?\nA cat.') + 8 + 1000);
  });

  it('REST generateContentRequest form with systemInstruction and tools counts them too', async () => {
    const plain = await geminiRaw(gateway.url, `/v1beta/models/${modelOf.gemini}:countTokens`, { contents: [{ parts: [{ text: 'Hi' }] }] });
    const wrapped = await geminiRaw(gateway.url, `/v1beta/models/${modelOf.gemini}:countTokens`, {
      generateContentRequest: {
        model: `models/${modelOf.gemini}`,
        systemInstruction: { parts: [{ text: 'You are a very long system prompt about weather.' }] },
        contents: [{ parts: [{ text: 'Hi' }] }],
        tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } }] }],
      },
    });
    expect(plain.status).toBe(200);
    expect(wrapped.status, wrapped.text).toBe(200);
    expect(wrapped.json.totalTokens).toBeGreaterThan(plain.json.totalTokens + 10);
  });

  // Google's CountTokensRequest: contents and generateContentRequest "are mutually exclusive ... never both".
  // The wrapper alone was counted, the client's contents ignored without a word.
  it('contents beside a generateContentRequest wrapper → 400 INVALID_ARGUMENT, through the SDK (extraBody) and raw in either spelling', async () => {
    const wrapper = { model: `models/${modelOf.gemini}`, contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
    const calls = upstreamCalls();
    const refused = await sdk.models
      .countTokens({ model: modelOf.gemini, contents: 'A much longer prompt that the wrapper does not hold.', config: { httpOptions: { extraBody: { generateContentRequest: wrapper } } } })
      .then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(400);
    expect((refused as ApiError).message).toContain('mutually exclusive');
    for (const field of ['generateContentRequest', 'generate_content_request']) {
      const raw = await geminiRaw(gateway.url, `/v1beta/models/${modelOf.gemini}:countTokens`, { contents: [{ parts: [{ text: 'Other' }] }], [field]: wrapper });
      expect(raw.status, raw.text).toBe(400);
      expect(raw.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    }
    expect(upstreamCalls()).toBe(calls);
    // An empty list is proto3's unset field: the wrapper alone, counted as the plain form counts it.
    const plain = await geminiRaw(gateway.url, `/v1beta/models/${modelOf.gemini}:countTokens`, { contents: wrapper.contents });
    const emptyBeside = await geminiRaw(gateway.url, `/v1beta/models/${modelOf.gemini}:countTokens`, { contents: [], generateContentRequest: wrapper });
    expect(emptyBeside.status, emptyBeside.text).toBe(200);
    expect(emptyBeside.json.totalTokens).toBe(plain.json.totalTokens);
  });

  it('countTokens writes no log row and takes no quota', async () => {
    const [logs, before] = [await logCount(), await wallet()];
    await sdk.models.countTokens({ model: modelOf.anthropic, contents: 'x' });
    expect(await logCount()).toBe(logs);
    expect(await wallet()).toBe(before);
  });

  it('an unpriced model → 400 as :generateContent answers (docs: "the same 400 / 403 / 503")', async () => {
    const generate = await geminiRaw(gateway.url, '/v1beta/models/unpriced-model:generateContent', { contents: [{ parts: [{ text: 'x' }] }] });
    expect(generate.status).toBe(400);
    expect(generate.json.error.status).toBe('INVALID_ARGUMENT');
    const count = await geminiRaw(gateway.url, '/v1beta/models/unpriced-model:countTokens', { contents: [{ parts: [{ text: 'x' }] }] });
    expect(count.status, count.text).toBe(400);
  });

  it('a model outside the key\'s model_limits → 403 PERMISSION_DENIED', async () => {
    const count = await geminiRaw(gateway.url, `/v1beta/models/${modelOf.gemini}:countTokens`, { contents: [{ parts: [{ text: 'x' }] }] }, { auth: { 'x-goog-api-key': limitedKey } });
    expect(count.status).toBe(403);
    expect(count.json.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
  });
});

describe('GET /v1beta/models through the SDK', () => {
  it('models.list() pages with pageSize 2 through every usable model, names models/…, no unpriced model', async () => {
    const names: string[] = [];
    const pager = await sdk.models.list({ config: { pageSize: 2 } });
    for await (const model of pager) names.push(model.name!);
    const expected = [...Object.values(modelOf), ...pagingModels].map((id) => `models/${id}`);
    expect(names.sort()).toEqual(expected.sort());
    expect(names).not.toContain('models/unpriced-model');
  });

  it('the limited key lists only its model', async () => {
    const limited = new GoogleGenAI({ apiKey: limitedKey, httpOptions: { baseUrl: gateway.url } });
    const names: string[] = [];
    for await (const model of await limited.models.list()) names.push(model.name!);
    expect(names).toEqual([`models/${modelOf['openai-chat']}`]);
  });

  it('models.get(): name, displayName, supportedActions include generateContent', async () => {
    const model = await sdk.models.get({ model: modelOf.anthropic });
    expect(model.name).toBe(`models/${modelOf.anthropic}`);
    expect(model.supportedActions).toEqual(expect.arrayContaining(['generateContent', 'countTokens']));
  });

  it('a model a Gemini channel serves lists embedContent and batchEmbedContents (how Google\'s docs find embedding models), the others do not', async () => {
    const actions = new Map<string, string[] | undefined>();
    for await (const model of await sdk.models.list()) actions.set(model.name!, model.supportedActions);
    expect(actions.get(`models/${modelOf.gemini}`)).toEqual(['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents']);
    for (const style of styles.filter((style) => style !== 'gemini')) expect(actions.get(`models/${modelOf[style]}`)).toEqual(['generateContent', 'streamGenerateContent', 'countTokens']);
    expect((await sdk.models.get({ model: modelOf.gemini })).supportedActions).toEqual(expect.arrayContaining(['embedContent', 'batchEmbedContents']));
  });

  it('models.get() of a model the key may not use → ApiError 404', async () => {
    const limited = new GoogleGenAI({ apiKey: limitedKey, httpOptions: { baseUrl: gateway.url } });
    const error = await limited.models.get({ model: modelOf.gemini }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(404);
  });

  it('models.get() of a listed model whose id has a slash (vendor/page-m5): found, as generateContent finds it', async () => {
    const listed: string[] = [];
    for await (const model of await sdk.models.list()) listed.push(model.name!);
    expect(listed).toContain('models/vendor/page-m5');
    expect((await sdk.models.generateContent({ model: 'vendor/page-m5', contents: 'hi' })).text).toBe('Hello');
    const got = await sdk.models.get({ model: 'vendor/page-m5' }).catch((caught: unknown) => caught);
    expect(got, String(got)).not.toBeInstanceOf(Error);
    expect((got as any).name).toBe('models/vendor/page-m5');
  });

  it('pageSize=0 means "unspecified" (Google: 50 per page), not 1', async () => {
    const list = await geminiRaw(gateway.url, '/v1beta/models?pageSize=0', undefined, { method: 'GET' });
    expect(list.status).toBe(200);
    expect(list.json.models).toHaveLength(Object.values(modelOf).length + pagingModels.length);
  });
});

describe('the key: x-goog-api-key, ?key=, Bearer', () => {
  const body = { contents: [{ parts: [{ text: 'hi' }] }] };
  it('?key= on generateContent, streamGenerateContent?alt=sse, countTokens and the model list', async () => {
    const key = `key=${callerKey}`;
    expect((await geminiRaw(gateway.url, `/v1beta/models/${modelOf['openai-chat']}:generateContent?${key}`, body, { auth: {} })).status).toBe(200);
    const stream = await geminiRaw(gateway.url, `/v1beta/models/${modelOf.anthropic}:streamGenerateContent?alt=sse&${key}`, body, { auth: {} });
    expect(stream.status).toBe(200);
    expect(sseData(stream.text).at(-1).candidates[0].finishReason).toBe('STOP');
    expect((await geminiRaw(gateway.url, `/v1beta/models/${modelOf.gemini}:countTokens?${key}`, body, { auth: {} })).status).toBe(200);
    expect((await geminiRaw(gateway.url, `/v1beta/models?${key}`, undefined, { auth: {}, method: 'GET' })).status).toBe(200);
    expect((await geminiRaw(gateway.url, `/v1/models?${key}`, undefined, { auth: {}, method: 'GET' })).json.models).toBeDefined();
  });

  it('Authorization: Bearer on a Gemini path', async () => {
    expect((await geminiRaw(gateway.url, `/v1beta/models/${modelOf['openai-chat']}:generateContent`, body, { auth: { authorization: `Bearer ${callerKey}` } })).status).toBe(200);
  });

  it('a wrong key → 401 in Google\'s envelope; the SDK raises ApiError 401', async () => {
    const wrong = await geminiRaw(gateway.url, `/v1beta/models/${modelOf['openai-chat']}:generateContent`, body, { auth: { 'x-goog-api-key': `sk-${'z'.repeat(48)}` } });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: { code: 401, message: expect.any(String), status: 'UNAUTHENTICATED' } });
    const bad = new GoogleGenAI({ apiKey: 'sk-nope', httpOptions: { baseUrl: gateway.url } });
    const error = await bad.models.generateContent({ model: modelOf['openai-chat'], contents: 'hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
  });

  it('no key → 401 naming x-goog-api-key and ?key=', async () => {
    const none = await geminiRaw(gateway.url, `/v1beta/models/${modelOf['openai-chat']}:generateContent`, body, { auth: {} });
    expect(none.status).toBe(401);
    expect(none.json.error.message).toContain('x-goog-api-key');
  });

  it('a wrong ?key= on the model list → 401 in Google\'s envelope', async () => {
    const list = await geminiRaw(gateway.url, '/v1/models?key=sk-wrong', undefined, { auth: {}, method: 'GET' });
    expect(list.status).toBe(401);
    expect(list.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
  });
});
