import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRow } from '../support/log-row.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { callAdmin, callGateway, listModelIds } from './admin-client.js';

const upstreamKey = 'sk-upstream-happy-path-secret-0123456789';

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`admin API on ${dialect}`, () => {
    let gateway: TestGateway;

    beforeAll(async () => {
      // The model lists below name channel models without prices: listed only while unpriced models are allowed.
      gateway = await startTestGateway({ dialect, config: { allow_unpriced_models: true } });
    });
    afterAll(async () => {
      await gateway?.close();
    });

    it('creates, lists, gets, updates and deletes a group', async () => {
      const created = await callAdmin(gateway, 'POST', '/api/admin/groups', { body: { name: 'vip', ratio: 0.5 } });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ success: true, message: '', data: { name: 'vip', ratio: 0.5 } });

      const list = await callAdmin(gateway, 'GET', '/api/admin/groups');
      expect(list.body.data).toEqual({ items: [{ name: 'default', ratio: 1 }, { name: 'vip', ratio: 0.5 }], total: 2, page: 1, page_size: 20 });

      const updated = await callAdmin(gateway, 'PUT', '/api/admin/groups/vip', { body: { ratio: 0.8 } });
      expect(updated.body.data).toEqual({ name: 'vip', ratio: 0.8 });
      expect((await callAdmin(gateway, 'GET', '/api/admin/groups/vip')).body.data.ratio).toBe(0.8);
      expect(gateway.gateway.services.catalog.snapshot.groupRatios.get('vip')).toBe(0.8);

      await callAdmin(gateway, 'POST', '/api/admin/groups', { body: { name: 'temporary', ratio: 2 } });
      const deleted = await callAdmin(gateway, 'DELETE', '/api/admin/groups/temporary');
      expect(deleted.body).toEqual({ success: true, message: '', data: { name: 'temporary' } });
      expect((await callAdmin(gateway, 'GET', '/api/admin/groups/temporary')).status).toBe(404);
      expect(gateway.gateway.services.catalog.snapshot.groupRatios.has('temporary')).toBe(false);
    });

    it('creates a channel with its key masked in every answer, and updates only the fields sent', async () => {
      const created = await callAdmin(gateway, 'POST', '/api/admin/channels', {
        body: { name: 'openai-main', type: 'openai', base_url: 'https://api.example.com/v1/', key: upstreamKey, models: ['gpt-4o', 'gpt-4o-mini'] },
      });
      expect(created.status).toBe(200);
      expect(created.body.success).toBe(true);
      expect(created.body.data).toMatchObject({
        name: 'openai-main',
        type: 'openai',
        base_url: 'https://api.example.com/v1',
        keys: ['sk-u…6789'],
        key_count: 1,
        models: ['gpt-4o', 'gpt-4o-mini'],
        groups: ['default'],
        priority: 0,
        weight: 1,
        enabled: true,
        auto_disable: true,
      });
      const id = created.body.data.id as number;

      const fetched = await callAdmin(gateway, 'GET', `/api/admin/channels/${id}`);
      expect(fetched.body.data).toEqual(created.body.data);

      const updated = await callAdmin(gateway, 'PUT', `/api/admin/channels/${id}`, { body: { priority: 5, keys: [upstreamKey, 'sk-second-upstream-key-abcdefgh'] } });
      expect(updated.body.data).toMatchObject({ priority: 5, key_count: 2, groups: ['default'], weight: 1, models: ['gpt-4o', 'gpt-4o-mini'] });
      // The stored keys really changed: the router reads them from the catalog.
      expect(gateway.gateway.services.catalog.snapshot.channelsById.get(id)?.keys).toEqual([upstreamKey, 'sk-second-upstream-key-abcdefgh']);

      const list = await callAdmin(gateway, 'GET', '/api/admin/channels?p=1&page_size=10');
      expect(list.body.data).toMatchObject({ total: 1, page: 1, page_size: 10 });
      expect(list.body.data.items.map((channel: { name: string }) => channel.name)).toEqual(['openai-main']);
    });

    it('creates a user with a hashed password, updates it, adjusts its balance and deletes it', async () => {
      const created = await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'carol', password: 'carol-password', quota: 1000 } });
      expect(created.body.data).toMatchObject({ username: 'carol', role: 'user', group: 'default', quota: 1000, unlimited_quota: false, enabled: true });
      const id = created.body.data.id as number;
      const stored = await gateway.gateway.services.repositories.users.passwordHashOf('carol');
      expect(stored?.passwordHash).toMatch(/^scrypt:/);

      const unlimited = await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'dave' } });
      expect(unlimited.body.data).toMatchObject({ unlimited_quota: true, quota: 0 });

      const updated = await callAdmin(gateway, 'PUT', `/api/admin/users/${id}`, { body: { group: 'vip', role: 'admin' } });
      expect(updated.body.data).toMatchObject({ username: 'carol', group: 'vip', role: 'admin', quota: 1000 });

      const toppedUp = await callAdmin(gateway, 'POST', `/api/admin/users/${id}/quota`, { body: { delta: 500 } });
      expect(toppedUp.body.data.quota).toBe(1500);
      const takenBack = await callAdmin(gateway, 'POST', `/api/admin/users/${id}/quota`, { body: { delta: -1500 } });
      expect(takenBack.body.data.quota).toBe(0);
      expect(gateway.gateway.services.catalog.snapshot.usersById.get(id)?.quota).toBe(0);

      const list = await callAdmin(gateway, 'GET', '/api/admin/users?page=1&page_size=2');
      expect(list.body.data).toMatchObject({ page: 1, page_size: 2, total: 3 });
      expect(list.body.data.items).toHaveLength(2);
      const secondPage = await callAdmin(gateway, 'GET', '/api/admin/users?p=2&page_size=2');
      expect(secondPage.body.data.items.map((user: { username: string }) => user.username)).toEqual(['dave']);

      expect((await callAdmin(gateway, 'DELETE', `/api/admin/users/${unlimited.body.data.id}`)).body.data).toEqual({ id: unlimited.body.data.id });
      expect((await callAdmin(gateway, 'GET', `/api/admin/users/${unlimited.body.data.id}`)).status).toBe(404);
    });

    it('creates a token whose key works at once, lists exactly its models, and shows the key only once', async () => {
      const owner = await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'erin', quota: 10_000 } });
      await callAdmin(gateway, 'POST', '/api/admin/channels', {
        body: { name: 'vip-anthropic', type: 'anthropic', base_url: 'https://anthropic.example.com', key: 'sk-ant-vip-secret-key-0000', models: ['claude-sonnet'], groups: ['vip'] },
      });
      await callAdmin(gateway, 'POST', '/api/admin/channels', {
        body: { name: 'default-gemini', type: 'gemini', base_url: 'https://gemini.example.com', key: 'gemini-secret-key-123456', models: ['gemini-pro'] },
      });

      const created = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'erin-key', user_id: owner.body.data.id, quota: 300, model_limits: ['gpt-4o', 'gemini-pro', 'claude-sonnet'] } });
      expect(created.status).toBe(200);
      const key = created.body.data.key as string;
      expect(key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
      expect(created.body.data).toMatchObject({ name: 'erin-key', user_id: owner.body.data.id, quota: 300, unlimited_quota: false, group: null, key_prefix: `${key.slice(0, 7)}…${key.slice(-4)}` });
      // The default group's enabled channels serve gpt-4o, gpt-4o-mini and gemini-pro; model_limits keeps two.
      expect(await listModelIds(gateway, key)).toEqual(['gemini-pro', 'gpt-4o']);

      const id = created.body.data.id as number;
      const fetched = await callAdmin(gateway, 'GET', `/api/admin/tokens/${id}`);
      expect(fetched.body.data.key).toBeUndefined();
      expect(fetched.text).not.toContain(key);
      const list = await callAdmin(gateway, 'GET', `/api/admin/tokens?user_id=${owner.body.data.id}`);
      expect(list.body.data.total).toBe(1);
      expect(list.text).not.toContain(key);

      const widened = await callAdmin(gateway, 'PUT', `/api/admin/tokens/${id}`, { body: { model_limits: null, group: 'default' } });
      expect(widened.body.data).toMatchObject({ model_limits: null, group: 'default', quota: 300 });
      expect(await listModelIds(gateway, key)).toEqual(['gemini-pro', 'gpt-4o', 'gpt-4o-mini']);
    });

    it('removes the models of a disabled channel from the model list at once', async () => {
      const token = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'root-key' } });
      const key = token.body.data.key as string;
      expect(token.body.data).toMatchObject({ unlimited_quota: true });
      expect(await listModelIds(gateway, key)).toEqual(['gemini-pro', 'gpt-4o', 'gpt-4o-mini']);

      const channels = await callAdmin(gateway, 'GET', '/api/admin/channels');
      const openai = channels.body.data.items.find((channel: { name: string }) => channel.name === 'openai-main');
      const disabled = await callAdmin(gateway, 'PUT', `/api/admin/channels/${openai.id}`, { body: { enabled: false } });
      expect(disabled.body.data).toMatchObject({ enabled: false, status: 'disabled' });
      expect(await listModelIds(gateway, key)).toEqual(['gemini-pro']);

      await callAdmin(gateway, 'PUT', `/api/admin/channels/${openai.id}`, { body: { enabled: true } });
      expect(await listModelIds(gateway, key)).toEqual(['gemini-pro', 'gpt-4o', 'gpt-4o-mini']);

      const gemini = channels.body.data.items.find((channel: { name: string }) => channel.name === 'default-gemini');
      expect((await callAdmin(gateway, 'DELETE', `/api/admin/channels/${gemini.id}`)).body.data).toEqual({ id: gemini.id });
      expect(await listModelIds(gateway, key)).toEqual(['gpt-4o', 'gpt-4o-mini']);
      expect((await callAdmin(gateway, 'GET', `/api/admin/channels/${gemini.id}`)).status).toBe(404);
    });

    it("regenerates a token's key, adjusts its balance and deletes it", async () => {
      const created = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'rotating', user: 'root', quota: 50 } });
      const id = created.body.data.id as number;
      const oldKey = created.body.data.key as string;
      expect((await callGateway(gateway, 'GET', '/v1/models', { headers: { authorization: `Bearer ${oldKey}` } })).status).toBe(200);

      const regenerated = await callAdmin(gateway, 'POST', `/api/admin/tokens/${id}/key`);
      const newKey = regenerated.body.data.key as string;
      expect(newKey).toMatch(/^sk-[A-Za-z0-9]{48}$/);
      expect(newKey).not.toBe(oldKey);
      expect(regenerated.body.data.key_prefix).toBe(`${newKey.slice(0, 7)}…${newKey.slice(-4)}`);
      expect((await callGateway(gateway, 'GET', '/v1/models', { headers: { authorization: `Bearer ${oldKey}` } })).status).toBe(401);
      expect((await callGateway(gateway, 'GET', '/v1/models', { headers: { authorization: `Bearer ${newKey}` } })).status).toBe(200);

      expect((await callAdmin(gateway, 'POST', `/api/admin/tokens/${id}/quota`, { body: { delta: 25 } })).body.data.quota).toBe(75);
      expect((await callAdmin(gateway, 'POST', `/api/admin/tokens/${id}/quota`, { body: { delta: -75 } })).body.data.quota).toBe(0);
      expect(gateway.gateway.services.catalog.snapshot.tokensById.get(id)?.remainQuota).toBe(0);

      expect((await callAdmin(gateway, 'DELETE', `/api/admin/tokens/${id}`)).body.data).toEqual({ id });
      expect((await callGateway(gateway, 'GET', '/v1/models', { headers: { authorization: `Bearer ${newKey}` } })).status).toBe(401);
      expect((await callAdmin(gateway, 'GET', `/api/admin/tokens/${id}`)).status).toBe(404);
    });

    it('creates, reads, updates and deletes prices keyed by model name, including names with a slash', async () => {
      const created = await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'gpt-4o', input: 2.5, output: 10 } });
      expect(created.body.data).toEqual({ model: 'gpt-4o', input: 2.5, output: 10, cache_read: null, cache_write: null, cache_write_1h: null, audio_input: null, audio_output: null, image_input: null, image_output: null, web_search: null, priority: null, per_call: null, per_second: null });
      expect(gateway.gateway.services.catalog.snapshot.prices.get('gpt-4o')).toMatchObject({ input: 2.5, output: 10 });

      const slashed = await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'meta-llama/Llama-3-70b', per_call: 0.01 } });
      expect(slashed.status).toBe(200);
      expect((await callAdmin(gateway, 'GET', '/api/admin/prices/meta-llama%2FLlama-3-70b')).body.data.per_call).toBe(0.01);

      const updated = await callAdmin(gateway, 'PUT', '/api/admin/prices/gpt-4o', { body: { cache_read: 1.25, output: null } });
      expect(updated.body.data).toEqual({ model: 'gpt-4o', input: 2.5, output: null, cache_read: 1.25, cache_write: null, cache_write_1h: null, audio_input: null, audio_output: null, image_input: null, image_output: null, web_search: null, priority: null, per_call: null, per_second: null });

      const claude = await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'claude-cached', input: 3, cache_write: 3.75, cache_write_1h: 6 } });
      expect(claude.body.data).toMatchObject({ cache_write: 3.75, cache_write_1h: 6 });
      expect(gateway.gateway.services.catalog.snapshot.prices.get('claude-cached')).toMatchObject({ cacheWrite: 3.75, cacheWrite1h: 6 });
      const cleared = await callAdmin(gateway, 'PUT', '/api/admin/prices/claude-cached', { body: { cache_write_1h: null } });
      expect(cleared.body.data).toMatchObject({ cache_write: 3.75, cache_write_1h: null });
      expect(gateway.gateway.services.catalog.snapshot.prices.get('claude-cached')?.cacheWrite1h).toBeUndefined();
      expect((await callAdmin(gateway, 'DELETE', '/api/admin/prices/claude-cached')).status).toBe(200);

      const realtime = await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'gpt-realtime', input: 4, output: 16, audio_input: 32, audio_output: 64 } });
      expect(realtime.body.data).toMatchObject({ audio_input: 32, audio_output: 64 });
      expect(gateway.gateway.services.catalog.snapshot.prices.get('gpt-realtime')).toMatchObject({ audioInput: 32, audioOutput: 64 });
      const audioCleared = await callAdmin(gateway, 'PUT', '/api/admin/prices/gpt-realtime', { body: { audio_output: null } });
      expect(audioCleared.body.data).toMatchObject({ audio_input: 32, audio_output: null });
      expect(gateway.gateway.services.catalog.snapshot.prices.get('gpt-realtime')?.audioOutput).toBeUndefined();
      expect((await callAdmin(gateway, 'DELETE', '/api/admin/prices/gpt-realtime')).status).toBe(200);

      const painter = await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'gemini-image', input: 2, output: 12, image_output: 120 } });
      expect(painter.body.data).toMatchObject({ image_input: null, image_output: 120 });
      const imageIn = await callAdmin(gateway, 'PUT', '/api/admin/prices/gemini-image', { body: { image_input: 4 } });
      expect(imageIn.body.data).toMatchObject({ image_input: 4, image_output: 120 });
      expect(gateway.gateway.services.catalog.snapshot.prices.get('gemini-image')).toMatchObject({ imageInput: 4, imageOutput: 120 });
      const imageCleared = await callAdmin(gateway, 'PUT', '/api/admin/prices/gemini-image', { body: { image_output: null } });
      expect(imageCleared.body.data).toMatchObject({ image_input: 4, image_output: null });
      expect(gateway.gateway.services.catalog.snapshot.prices.get('gemini-image')?.imageOutput).toBeUndefined();
      expect((await callAdmin(gateway, 'DELETE', '/api/admin/prices/gemini-image')).status).toBe(200);

      const searching = await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'claude-searching', input: 3, output: 15, web_search: 0.01 } });
      expect(searching.body.data).toMatchObject({ web_search: 0.01 });
      expect(gateway.gateway.services.catalog.snapshot.prices.get('claude-searching')).toMatchObject({ webSearch: 0.01 });
      const searchCleared = await callAdmin(gateway, 'PUT', '/api/admin/prices/claude-searching', { body: { web_search: null } });
      expect(searchCleared.body.data).toMatchObject({ web_search: null });
      expect((await callAdmin(gateway, 'DELETE', '/api/admin/prices/claude-searching')).status).toBe(200);

      const list = await callAdmin(gateway, 'GET', '/api/admin/prices');
      expect(list.body.data.items.map((price: { model: string }) => price.model)).toEqual(['gpt-4o', 'meta-llama/Llama-3-70b']);
      expect(list.body.data.total).toBe(2);

      expect((await callAdmin(gateway, 'DELETE', '/api/admin/prices/meta-llama%2FLlama-3-70b')).body.data).toEqual({ model: 'meta-llama/Llama-3-70b' });
      expect((await callAdmin(gateway, 'GET', '/api/admin/prices/meta-llama%2FLlama-3-70b')).status).toBe(404);
      expect(gateway.gateway.services.catalog.snapshot.prices.has('meta-llama/Llama-3-70b')).toBe(false);
    });

    it('lists and aggregates the request log with filters', async () => {
      const day = Date.UTC(2026, 0, 1);
      await gateway.gateway.services.repositories.logs.insertMany([
        logRow({ request_id: 'req-a', created_at: day + 1_000, model: 'gpt-4o', quota: 100, user_id: 7 }),
        logRow({ request_id: 'req-b', created_at: day + 2_000, model: 'gpt-4o', quota: 50, user_id: 8, status: 429 }),
        logRow({ request_id: 'req-c', created_at: day + 86_400_000 + 5, model: 'claude-sonnet', quota: 30, user_id: 7, channel_id: 2 }),
      ]);

      const all = await callAdmin(gateway, 'GET', '/api/admin/logs');
      expect(all.body.data.total).toBe(3);
      expect(all.body.data.items.map((entry: { request_id: string }) => entry.request_id)).toEqual(['req-c', 'req-b', 'req-a']);

      const byUser = await callAdmin(gateway, 'GET', '/api/admin/logs?user_id=7&page_size=1');
      expect(byUser.body.data).toMatchObject({ total: 2, page_size: 1 });
      expect(byUser.body.data.items.map((entry: { request_id: string }) => entry.request_id)).toEqual(['req-c']);

      const byStatus = await callAdmin(gateway, 'GET', '/api/admin/logs?status=429');
      expect(byStatus.body.data.items.map((entry: { request_id: string }) => entry.request_id)).toEqual(['req-b']);
      const byTime = await callAdmin(gateway, 'GET', `/api/admin/logs?start=${day}&end=${day + 86_400_000}&model=gpt-4o`);
      expect(byTime.body.data.total).toBe(2);
      const byRequest = await callAdmin(gateway, 'GET', '/api/admin/logs?request_id=req-c&channel_id=2');
      expect(byRequest.body.data.items).toHaveLength(1);

      const usage = await callAdmin(gateway, 'GET', '/api/admin/logs/usage');
      expect(usage.body.data).toEqual([
        { day: '2026-01-01', model: 'gpt-4o', requests: 2, quota: 150, input_tokens: 20, output_tokens: 10 },
        { day: '2026-01-02', model: 'claude-sonnet', requests: 1, quota: 30, input_tokens: 10, output_tokens: 5 },
      ]);
      const usageOfUser = await callAdmin(gateway, 'GET', '/api/admin/logs/usage?user_id=8');
      expect(usageOfUser.body.data).toEqual([{ day: '2026-01-01', model: 'gpt-4o', requests: 1, quota: 50, input_tokens: 10, output_tokens: 5 }]);
    });

    it("reads the log's time range in new-api's unix seconds too (both ends inclusive, 0 open), on the list and the usage", async () => {
      // Rows of user 41 around two whole seconds (2026-03-01, apart from the other cases' rows).
      const base = Date.UTC(2026, 2, 1);
      const second = base / 1000;
      await gateway.gateway.services.repositories.logs.insertMany([
        logRow({ request_id: 'ts-before', created_at: base - 1, user_id: 41, quota: 1 }),
        logRow({ request_id: 'ts-first', created_at: base, user_id: 41, quota: 10 }),
        logRow({ request_id: 'ts-last', created_at: base + 1_999, user_id: 41, quota: 100 }),
        logRow({ request_id: 'ts-after', created_at: base + 2_000, user_id: 41, quota: 1000 }),
      ]);
      const listed = async (query: string) => {
        const answer = await callAdmin(gateway, 'GET', `/api/admin/logs?user_id=41&${query}`);
        expect(answer.status, answer.text).toBe(200);
        return answer.body.data.items.map((entry: { request_id: string }) => entry.request_id);
      };
      expect(await listed(`start_timestamp=${second}&end_timestamp=${second + 1}`), 'the end second is in, whole').toEqual(['ts-last', 'ts-first']);
      expect(await listed(`start_timestamp=${second}&end_timestamp=${second + 1}`)).toEqual(await listed(`start=${base}&end=${base + 2_000}`));
      expect(await listed(`start_timestamp=${second + 1}&end_timestamp=0`), 'new-api: 0 is no bound').toEqual(['ts-after', 'ts-last']);
      expect(await listed(`start_timestamp=0&end_timestamp=${second}`)).toEqual(['ts-first', 'ts-before']);
      expect(await listed(`start=${base}&end_timestamp=${second}`), 'one end in each spelling').toEqual(['ts-first']);

      const usage = await callAdmin(gateway, 'GET', `/api/admin/logs/usage?user_id=41&start_timestamp=${second}&end_timestamp=${second + 1}`);
      expect(usage.body.data).toEqual([{ day: '2026-03-01', model: 'gpt-4o', requests: 2, quota: 110, input_tokens: 20, output_tokens: 10 }]);
    });

    it('deletes the log entries created before a time, and only those', async () => {
      const logs = gateway.gateway.services.repositories.logs;
      const day = Date.UTC(2025, 5, 1);
      await logs.insertMany([
        logRow({ request_id: 'old-1', created_at: day - 2 }),
        logRow({ request_id: 'old-2', created_at: day - 1 }),
        logRow({ request_id: 'boundary', created_at: day }),
        logRow({ request_id: 'new', created_at: day + 1 }),
      ]);
      const answer = await callAdmin(gateway, 'DELETE', `/api/admin/logs?before=${day}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ success: true, message: '', data: { deleted: 2 } });
      const left = await callAdmin(gateway, 'GET', `/api/admin/logs?start=${day - 10}&end=${day + 10}`);
      expect(left.body.data.items.map((entry: { request_id: string }) => entry.request_id)).toEqual(['new', 'boundary']);
      expect((await callAdmin(gateway, 'DELETE', `/api/admin/logs?before=${day}`)).body.data).toEqual({ deleted: 0 });
    });
  });
}

describe('admin API documentation', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('publishes an OpenAPI document listing every admin route', async () => {
    const answer = await callGateway(gateway, 'GET', '/api/admin/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toMatch(/^3\./);
    const operations = Object.entries(answer.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /api/admin/channels',
        'POST /api/admin/channels',
        'POST /api/admin/channels/{id}/test',
        'GET /api/admin/channels/{id}',
        'PUT /api/admin/channels/{id}',
        'DELETE /api/admin/channels/{id}',
        'GET /api/admin/tokens',
        'POST /api/admin/tokens',
        'GET /api/admin/tokens/{id}',
        'PUT /api/admin/tokens/{id}',
        'DELETE /api/admin/tokens/{id}',
        'POST /api/admin/tokens/{id}/key',
        'POST /api/admin/tokens/{id}/quota',
        'GET /api/admin/users',
        'POST /api/admin/users',
        'GET /api/admin/users/{id}',
        'PUT /api/admin/users/{id}',
        'DELETE /api/admin/users/{id}',
        'POST /api/admin/users/{id}/quota',
        'GET /api/admin/prices',
        'POST /api/admin/prices',
        'GET /api/admin/prices/{model}',
        'PUT /api/admin/prices/{model}',
        'DELETE /api/admin/prices/{model}',
        'GET /api/admin/groups',
        'POST /api/admin/groups',
        'GET /api/admin/groups/{name}',
        'PUT /api/admin/groups/{name}',
        'DELETE /api/admin/groups/{name}',
        'GET /api/admin/logs',
        'DELETE /api/admin/logs',
        'GET /api/admin/logs/usage',
      ].sort(),
    );
    const createChannel = answer.body.paths['/api/admin/channels'].post;
    expect(createChannel.tags).toEqual(['channels']);
    expect(createChannel.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['name', 'type', 'base_url', 'models']));
    expect(answer.body.paths['/api/admin/logs'].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(['p', 'page_size', 'start', 'end', 'start_timestamp', 'end_timestamp', 'user_id', 'token_id', 'model', 'channel_id', 'status', 'request_id']),
    );
  });

  it('serves a browsable documentation page', async () => {
    const answer = await callGateway(gateway, 'GET', '/api/admin/docs');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/html');
    // Every script and stylesheet the page links must load, or the page stays blank.
    const assets = [...answer.text.matchAll(/(?:href|src)="([^"]+\.(?:css|js))"/g)].map((match) => match[1] ?? '');
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) {
      const loaded = await fetch(new URL(asset, `${gateway.url}/api/admin/docs`));
      expect(loaded.status, asset).toBe(200);
      expect((await loaded.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
  });
});
