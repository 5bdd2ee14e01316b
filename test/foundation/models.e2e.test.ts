import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';

const aliceKey = `sk-${'a1'.repeat(24)}`;
const limitedKey = `sk-${'b2'.repeat(24)}`;
const victorKey = `sk-${'c3'.repeat(24)}`;

const price = { input: 1, output: 2 };

/**
 * Channels are never called: listing models reads only the catalog. `unpriced-model` has no price (and
 * `allow_unpriced_models` is off), so the relay refuses it and no list names it.
 */
const config: ConfigFile = {
  groups: { default: 1, vip: 0.5 },
  prices: Object.fromEntries(['gpt-4o-mini', 'gpt-4o', 'gpt-4.1', 'claude-3-5-haiku', 'claude-sonnet-4', 'gemini-2.0-flash', 'gemini-1.5-pro'].map((model) => [model, price])),
  channels: [
    { name: 'openai-a', type: 'openai', base_url: 'http://127.0.0.1:9/a', key: 'k', models: ['gpt-4o-mini', 'gpt-4o', 'unpriced-model'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: true, settings: {} },
    { name: 'openai-vip', type: 'openai', base_url: 'http://127.0.0.1:9/b', key: 'k', models: ['gpt-4.1'], groups: ['vip'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: true, settings: {} },
    { name: 'claude', type: 'anthropic', base_url: 'http://127.0.0.1:9/c', key: 'k', models: ['claude-3-5-haiku', 'claude-sonnet-4'], groups: ['default', 'vip'], priority: 1, weight: 1, model_mapping: {}, enabled: true, auto_disable: true, settings: {} },
    { name: 'gemini-off', type: 'gemini', base_url: 'http://127.0.0.1:9/d', key: 'k', models: ['gemini-2.0-flash'], groups: ['default', 'vip'], priority: 0, weight: 1, model_mapping: {}, enabled: false, auto_disable: true, settings: {} },
    { name: 'gemini', type: 'gemini', base_url: 'http://127.0.0.1:9/e', key: 'k', models: ['gemini-1.5-pro'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: true, settings: {} },
  ],
  users: [
    { username: 'alice', role: 'user', group: 'default', enabled: true },
    { username: 'victor', role: 'user', group: 'vip', enabled: true },
  ],
  tokens: [
    { name: 'alice-all', user: 'alice', key: aliceKey, expires_at: 0, enabled: true },
    { name: 'alice-limited', user: 'alice', key: limitedKey, model_limits: ['gpt-4o-mini', 'claude-sonnet-4', 'gemini-2.0-flash', 'gpt-4.1'], expires_at: 0, enabled: true },
    { name: 'victor', user: 'victor', key: victorKey, expires_at: 0, enabled: true },
  ],
};

const aliceModels = ['claude-3-5-haiku', 'claude-sonnet-4', 'gemini-1.5-pro', 'gpt-4o', 'gpt-4o-mini'];
const limitedModels = ['claude-sonnet-4', 'gpt-4o-mini'];
const victorModels = ['claude-3-5-haiku', 'claude-sonnet-4', 'gpt-4.1'];

async function listIds(client: OpenAI): Promise<string[]> {
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  return ids;
}

async function getJson(url: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() };
}

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`GET /v1/models with the openai SDK on ${dialect}`, () => {
    let server: TestGateway;

    beforeAll(async () => {
      server = await startTestGateway({ dialect, config });
    });
    afterAll(async () => server?.close());

    it('lists exactly the models of the token’s group, enabled channels and model_limits', async () => {
      expect(await listIds(new OpenAI({ apiKey: aliceKey, baseURL: `${server.url}/v1` }))).toEqual(aliceModels);
      expect(await listIds(new OpenAI({ apiKey: limitedKey, baseURL: `${server.url}/v1` }))).toEqual(limitedModels);
      expect(await listIds(new OpenAI({ apiKey: victorKey, baseURL: `${server.url}/v1` }))).toEqual(victorModels);
    });
  });
}

describe('model listing styles', () => {
  let server: TestGateway;
  let alice: OpenAI;

  beforeAll(async () => {
    server = await startTestGateway({ config });
    alice = new OpenAI({ apiKey: aliceKey, baseURL: `${server.url}/v1` });
  });
  afterAll(async () => server?.close());

  describe('OpenAI style', () => {
    it('answers each model in the OpenAI shape, owned by the type of its highest-priority channel', async () => {
      const page = await alice.models.list();
      expect(page.data).toContainEqual({ id: 'gpt-4o', object: 'model', created: expect.any(Number), owned_by: 'openai' });
      expect(page.data.find((model) => model.id === 'claude-sonnet-4')?.owned_by).toBe('anthropic');
    });

    it('retrieves one allowed model with models.retrieve', async () => {
      expect(await alice.models.retrieve('gpt-4o-mini')).toEqual({ id: 'gpt-4o-mini', object: 'model', created: expect.any(Number), owned_by: 'openai' });
    });

    it('answers 404 model_not_found for a model of another group, a disabled channel or outside model_limits', async () => {
      const limited = new OpenAI({ apiKey: limitedKey, baseURL: `${server.url}/v1` });
      for (const [client, model] of [
        [alice, 'gpt-4.1'],
        [alice, 'gemini-2.0-flash'],
        [alice, 'no-such-model'],
        [limited, 'gpt-4o'],
      ] as const) {
        const error = await client.models.retrieve(model).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error, model).toBeInstanceOf(OpenAI.NotFoundError);
        expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
      }
    });

    it('serves the OpenAI list under /v1beta/openai/models', async () => {
      const underGemini = new OpenAI({ apiKey: aliceKey, baseURL: `${server.url}/v1beta/openai` });
      expect(await listIds(underGemini)).toEqual(aliceModels);
    });
  });

  describe('Anthropic style', () => {
    const anthropicHeaders = { 'x-api-key': aliceKey, 'anthropic-version': '2023-06-01' };

    it('answers the Anthropic list when x-api-key and anthropic-version are sent', async () => {
      const { status, body } = await getJson(`${server.url}/v1/models`, anthropicHeaders);
      expect(status).toBe(200);
      expect(body).toEqual({
        data: aliceModels.map((id) => ({ type: 'model', id, display_name: id, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) })),
        has_more: false,
        first_id: aliceModels[0],
        last_id: aliceModels[aliceModels.length - 1],
      });
    });

    it('answers the Anthropic list when only anthropic-version accompanies a Bearer key', async () => {
      const { body } = await getJson(`${server.url}/v1/models`, { authorization: `Bearer ${aliceKey}`, 'anthropic-version': '2023-06-01' });
      expect(body.data.map((model: { id: string }) => model.id)).toEqual(aliceModels);
      expect(body.has_more).toBe(false);
    });

    it('pages with limit and after_id until has_more is false', async () => {
      const seen: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 10; pages += 1) {
        const query = new URLSearchParams({ limit: '2', ...(after === undefined ? {} : { after_id: after }) });
        const { body } = await getJson(`${server.url}/v1/models?${query}`, anthropicHeaders);
        expect(body.data.length).toBeLessThanOrEqual(2);
        expect(body.first_id).toBe(body.data[0]?.id);
        expect(body.last_id).toBe(body.data[body.data.length - 1]?.id);
        seen.push(...body.data.map((model: { id: string }) => model.id));
        if (!body.has_more) break;
        after = body.last_id;
      }
      expect(seen).toEqual(aliceModels);
    });

    it('retrieves one model in the Anthropic shape and answers 404 in the Anthropic envelope for another', async () => {
      const found = await getJson(`${server.url}/v1/models/claude-sonnet-4`, anthropicHeaders);
      expect(found).toEqual({ status: 200, body: { type: 'model', id: 'claude-sonnet-4', display_name: 'claude-sonnet-4', created_at: expect.any(String) } });
      const missing = await getJson(`${server.url}/v1/models/gpt-4.1`, anthropicHeaders);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    });
  });

  describe('Gemini style', () => {
    const geminiNames = aliceModels.map((id) => `models/${id}`);
    const namesOf = (body: { models: { name: string }[] }) => body.models.map((model) => model.name);

    it('answers the Gemini list on /v1/models when x-goog-api-key is sent', async () => {
      const { status, body } = await getJson(`${server.url}/v1/models`, { 'x-goog-api-key': aliceKey });
      expect(status).toBe(200);
      expect(namesOf(body)).toEqual(geminiNames);
      expect(body.models[0]).toMatchObject({ name: 'models/claude-3-5-haiku', baseModelId: 'claude-3-5-haiku', displayName: 'claude-3-5-haiku', supportedGenerationMethods: expect.arrayContaining(['generateContent']) });
    });

    it('answers the Gemini list on /v1/models when the key comes as ?key=', async () => {
      const { status, body } = await getJson(`${server.url}/v1/models?key=${aliceKey}`, {});
      expect(status).toBe(200);
      expect(namesOf(body)).toEqual(geminiNames);
    });

    it('answers /v1beta/models with x-goog-api-key, ?key= or Bearer', async () => {
      for (const [query, headers] of [
        ['', { 'x-goog-api-key': aliceKey }],
        [`?key=${aliceKey}`, {}],
        ['', { authorization: `Bearer ${aliceKey}` }],
      ] as const) {
        const { status, body } = await getJson(`${server.url}/v1beta/models${query}`, headers);
        expect(status).toBe(200);
        expect(namesOf(body)).toEqual(geminiNames);
      }
    });

    it('pages /v1beta/models with pageSize and pageToken', async () => {
      const first = await getJson(`${server.url}/v1beta/models?pageSize=3`, { 'x-goog-api-key': aliceKey });
      expect(namesOf(first.body)).toEqual(geminiNames.slice(0, 3));
      const second = await getJson(`${server.url}/v1beta/models?pageSize=3&pageToken=${first.body.nextPageToken}`, { 'x-goog-api-key': aliceKey });
      expect(namesOf(second.body)).toEqual(geminiNames.slice(3));
      expect(second.body.nextPageToken).toBeUndefined();
    });

    it('retrieves one model on /v1beta/models/{model} and answers 404 in the Gemini envelope for another', async () => {
      const found = await getJson(`${server.url}/v1beta/models/gemini-1.5-pro`, { 'x-goog-api-key': aliceKey });
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ name: 'models/gemini-1.5-pro' });
      const missing = await getJson(`${server.url}/v1beta/models/gemini-2.0-flash`, { 'x-goog-api-key': aliceKey });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: { code: 404, message: expect.any(String), status: 'NOT_FOUND' } });
    });
  });

  it('follows a catalog change on the next request, without a restart', async () => {
    const { catalog, repositories } = server.gateway.services;
    const gemini = await repositories.channels.getByName('gemini');
    await repositories.channels.update(gemini?.id ?? -1, { status: 'disabled' }, Date.now());
    await catalog.changed();
    try {
      expect(await listIds(alice)).toEqual(aliceModels.filter((id) => id !== 'gemini-1.5-pro'));
    } finally {
      await repositories.channels.update(gemini?.id ?? -1, { status: 'enabled' }, Date.now());
      await catalog.changed();
    }
    expect(await listIds(alice)).toEqual(aliceModels);
  });

  describe('a model without a price (spec §4.2: the list holds the models usable with the key)', () => {
    it('is refused by chat with 400 price_not_configured', async () => {
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'unpriced-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('price_not_configured');
    });

    it('is in no list, in any style, and cannot be retrieved', async () => {
      const lists = [
        getJson(`${server.url}/v1/models`, { authorization: `Bearer ${aliceKey}` }),
        getJson(`${server.url}/v1beta/openai/models`, { authorization: `Bearer ${aliceKey}` }),
        getJson(`${server.url}/v1/models`, { 'x-api-key': aliceKey, 'anthropic-version': '2023-06-01' }),
        getJson(`${server.url}/v1/models`, { 'x-goog-api-key': aliceKey }),
        getJson(`${server.url}/v1beta/models`, { 'x-goog-api-key': aliceKey }),
      ];
      for (const { status, body } of await Promise.all(lists)) {
        expect(status).toBe(200);
        const ids = ((body.data ?? body.models) as { id?: string; name?: string }[]).map((model) => model.id ?? model.name?.replace(/^models\//, ''));
        expect(ids).toEqual(aliceModels);
      }
      expect((await getJson(`${server.url}/v1/models/unpriced-model`, { authorization: `Bearer ${aliceKey}` })).status).toBe(404);
      expect((await getJson(`${server.url}/v1beta/models/unpriced-model`, { 'x-goog-api-key': aliceKey })).status).toBe(404);
    });

    it('is listed while allow_unpriced_models is on', async () => {
      const { catalog, repositories } = server.gateway.services;
      await repositories.options.set('allow_unpriced_models', 'true');
      await catalog.changed();
      try {
        expect(await listIds(alice)).toEqual([...aliceModels, 'unpriced-model'].sort());
      } finally {
        await repositories.options.set('allow_unpriced_models', 'false');
        await catalog.changed();
      }
      expect(await listIds(alice)).toEqual(aliceModels);
    });
  });
});
