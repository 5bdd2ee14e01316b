import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { callAdmin } from './admin-client.js';

const validChannel = { name: 'upstream', type: 'openai', base_url: 'https://api.example.com', key: 'sk-error-suite-upstream-key', models: ['gpt-4o'] };

function expectFailure(answer: { status: number; body: any }, status: number, ...messageParts: string[]): void {
  expect(answer.status).toBe(status);
  expect(answer.body.success).toBe(false);
  expect(typeof answer.body.message).toBe('string');
  for (const part of messageParts) expect(answer.body.message).toContain(part);
}

describe('admin API refusals', () => {
  let gateway: TestGateway;
  let channelId: number;
  let userId: number;
  let tokenId: number;

  beforeAll(async () => {
    gateway = await startTestGateway();
    channelId = (await callAdmin(gateway, 'POST', '/api/admin/channels', { body: validChannel })).body.data.id;
    userId = (await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'frank', quota: 100 } })).body.data.id;
    tokenId = (await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'frank-key', user_id: userId, quota: 40 } })).body.data.id;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('answers 400 naming an unknown field', async () => {
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...validChannel, name: 'other', colour: 'blue' } }), 400, 'colour');
    expectFailure(await callAdmin(gateway, 'PUT', `/api/admin/users/${userId}`, { body: { nickname: 'x' } }), 400, 'nickname');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'x', scopes: [] } }), 400, 'scopes');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'm', input: 1, inputs: 2 } }), 400, 'inputs');
    expectFailure(await callAdmin(gateway, 'PUT', '/api/admin/groups/default', { body: { ratio: 1, name: 'renamed' } }), 400, 'name');
  });

  it('answers 400 naming a missing or malformed field', async () => {
    const { models: _models, ...withoutModels } = validChannel;
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...withoutModels, name: 'no-models' } }), 400, 'models');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...validChannel, name: 'bad-url', base_url: 'not a url' } }), 400, 'base_url');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...validChannel, name: 'bad-type', type: 'carrier-pigeon' } }), 400, 'type');
    const { key: _key, ...withoutKey } = validChannel;
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...withoutKey, name: 'no-key' } }), 400, 'key');
    expectFailure(await callAdmin(gateway, 'PUT', `/api/admin/channels/${channelId}`, { body: { priority: 'high' } }), 400, 'priority');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'grace', password: 'short' } }), 400, 'password');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'grace', role: 'emperor' } }), 400, 'role');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'neg', quota: -5 } }), 400, 'quota');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'empty' } }), 400, 'at least one');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/groups', { body: { name: 'cheap', ratio: -1 } }), 400, 'ratio');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { rawBody: '{"name": ' }), 400);
    expectFailure(await callAdmin(gateway, 'GET', '/api/admin/channels?page_size=many'), 400, 'page_size');
    expectFailure(await callAdmin(gateway, 'GET', '/api/admin/channels/abc'), 400, 'id');
  });

  it('refuses names already taken and references to what does not exist', async () => {
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: validChannel }), 409, 'name', 'already exists');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'frank' } }), 409, 'username');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'frank-key', user_id: userId } }), 409, 'name');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'orphan', user_id: 9999 } }), 400, 'user_id');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'lost', user: 'nobody' } }), 400, 'user');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'nowhere', group: 'atlantis' } }), 400, 'group', 'atlantis');
    expectFailure(await callAdmin(gateway, 'PUT', `/api/admin/users/${userId}`, { body: { group: 'atlantis' } }), 400, 'group');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/groups', { body: { name: 'default', ratio: 2 } }), 409, 'already exists');
    expect((await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'taken-price', input: 1 } })).status).toBe(200);
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'taken-price', input: 9 } }), 409, 'already has a price');
    expectFailure(await callAdmin(gateway, 'DELETE', '/api/admin/groups/default'), 400, 'default');
  });

  it('refuses to delete a group still in use and a root user', async () => {
    await callAdmin(gateway, 'POST', '/api/admin/groups', { body: { name: 'busy', ratio: 1 } });
    await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'busy-user', group: 'busy' } });
    expectFailure(await callAdmin(gateway, 'DELETE', '/api/admin/groups/busy'), 400, 'busy', '1 user');
    expect((await callAdmin(gateway, 'GET', '/api/admin/groups/busy')).status).toBe(200);

    const root = (await callAdmin(gateway, 'GET', '/api/admin/users')).body.data.items.find((user: { role: string }) => user.role === 'root');
    expectFailure(await callAdmin(gateway, 'DELETE', `/api/admin/users/${root.id}`), 400, 'root');
    expect((await callAdmin(gateway, 'GET', `/api/admin/users/${root.id}`)).status).toBe(200);
  });

  it('answers 404 for every missing entity', async () => {
    for (const path of ['/api/admin/channels/9999', '/api/admin/tokens/9999', '/api/admin/users/9999', '/api/admin/prices/no-such-model', '/api/admin/groups/no-such-group']) {
      expectFailure(await callAdmin(gateway, 'GET', path), 404, 'not found');
      expectFailure(await callAdmin(gateway, 'DELETE', path), 404, 'not found');
    }
    expectFailure(await callAdmin(gateway, 'PUT', '/api/admin/channels/9999', { body: { priority: 1 } }), 404);
    expectFailure(await callAdmin(gateway, 'PUT', '/api/admin/tokens/9999', { body: { enabled: false } }), 404);
    expectFailure(await callAdmin(gateway, 'PUT', '/api/admin/users/9999', { body: { enabled: false } }), 404);
    expectFailure(await callAdmin(gateway, 'PUT', '/api/admin/prices/no-such-model', { body: { input: 1 } }), 404);
    expectFailure(await callAdmin(gateway, 'PUT', '/api/admin/groups/no-such-group', { body: { ratio: 1 } }), 404);
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/tokens/9999/key'), 404);
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/tokens/9999/quota', { body: { delta: 1 } }), 404);
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/users/9999/quota', { body: { delta: 1 } }), 404);
    expectFailure(await callAdmin(gateway, 'GET', '/api/admin/nothing-here'), 404);
  });

  it('refuses overwriting a balance through an update', async () => {
    expectFailure(await callAdmin(gateway, 'PUT', `/api/admin/users/${userId}`, { body: { quota: 1_000_000 } }), 400, 'quota', '/quota');
    expectFailure(await callAdmin(gateway, 'PUT', `/api/admin/tokens/${tokenId}`, { body: { quota: 1_000_000 } }), 400, 'quota', '/quota');
    expect((await callAdmin(gateway, 'GET', `/api/admin/users/${userId}`)).body.data.quota).toBe(100);
    expect((await callAdmin(gateway, 'GET', `/api/admin/tokens/${tokenId}`)).body.data.quota).toBe(40);
  });

  it('refuses deleting log entries without a whole, non-negative time to delete before', async () => {
    expectFailure(await callAdmin(gateway, 'DELETE', '/api/admin/logs'), 400, 'before');
    expectFailure(await callAdmin(gateway, 'DELETE', '/api/admin/logs?before=yesterday'), 400, 'before');
    expectFailure(await callAdmin(gateway, 'DELETE', '/api/admin/logs?before=1.5'), 400, 'before');
    expectFailure(await callAdmin(gateway, 'DELETE', '/api/admin/logs?before=-1'), 400, 'before');
  });

  it("refuses one end of the log's time range given both ways (400 naming both), and unix ms as new-api's seconds", async () => {
    for (const route of ['/api/admin/logs', '/api/admin/logs/usage']) {
      expectFailure(await callAdmin(gateway, 'GET', `${route}?start=1800000000000&start_timestamp=1800000000`), 400, 'start', 'start_timestamp');
      expectFailure(await callAdmin(gateway, 'GET', `${route}?end_timestamp=0&end=1800000000000`), 400, 'end', 'end_timestamp');
      expectFailure(await callAdmin(gateway, 'GET', `${route}?start_timestamp=1800000000000`), 400, 'start_timestamp');
      expectFailure(await callAdmin(gateway, 'GET', `${route}?end_timestamp=1.5`), 400, 'end_timestamp');
    }
  });

  it('refuses a zero, fractional or missing delta', async () => {
    expectFailure(await callAdmin(gateway, 'POST', `/api/admin/users/${userId}/quota`, { body: { delta: 0 } }), 400, 'delta');
    expectFailure(await callAdmin(gateway, 'POST', `/api/admin/users/${userId}/quota`, { body: { delta: 1.5 } }), 400, 'delta');
    expectFailure(await callAdmin(gateway, 'POST', `/api/admin/tokens/${tokenId}/quota`, { body: {} }), 400, 'delta');
    expectFailure(await callAdmin(gateway, 'POST', `/api/admin/tokens/${tokenId}/quota`, { body: { delta: '5' } }), 400, 'delta');
    expectFailure(await callAdmin(gateway, 'POST', `/api/admin/tokens/${tokenId}/quota`, { body: { delta: 1e300 } }), 400, 'delta');
  });

  it('refuses a balance or an expiry past Number.MAX_SAFE_INTEGER, naming the field, and stores nothing', async () => {
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'huge-wallet', quota: 1e300 } }), 400, 'quota', '9007199254740991');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'huge-wallet', quota: Number.MAX_SAFE_INTEGER + 1 } }), 400, 'quota');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'huge-token', user_id: userId, quota: 1e300 } }), 400, 'quota');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'far-expiry', user_id: userId, expires_at: 1e300 } }), 400, 'expires_at');
    expectFailure(await callAdmin(gateway, 'PUT', `/api/admin/tokens/${tokenId}`, { body: { expires_at: 1e300 } }), 400, 'expires_at');
    const users = (await callAdmin(gateway, 'GET', '/api/admin/users?page_size=100')).body.data.items as { username: string }[];
    expect(users.map((user) => user.username)).not.toContain('huge-wallet');
    const largest = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'largest', user_id: userId, quota: Number.MAX_SAFE_INTEGER, expires_at: Number.MAX_SAFE_INTEGER } });
    expect(largest.status, largest.text).toBe(200);
    expect(largest.body.data).toMatchObject({ quota: Number.MAX_SAFE_INTEGER, expires_at: Number.MAX_SAFE_INTEGER });
  });

  it('refuses a channel naming a group that does not exist, as users and tokens are refused', async () => {
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...validChannel, name: 'ghost-group', groups: ['default', 'atlantis'] } }), 400, 'groups', 'atlantis');
    expectFailure(await callAdmin(gateway, 'PUT', `/api/admin/channels/${channelId}`, { body: { groups: ['atlantis'] } }), 400, 'groups', 'atlantis');
    expect((await callAdmin(gateway, 'GET', `/api/admin/channels/${channelId}`)).body.data.groups).toEqual(['default']);
  });

  it('refuses a model_mapping that loops, as the config file does (the model would be listed and fail every request)', async () => {
    const loop = { 'gpt-4o': 'gpt-4o-alias', 'gpt-4o-alias': 'gpt-4o' };
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...validChannel, name: 'looping', model_mapping: loop } }), 400, 'model_mapping', 'loops');
    expectFailure(await callAdmin(gateway, 'PUT', `/api/admin/channels/${channelId}`, { body: { model_mapping: loop } }), 400, 'model_mapping', 'loops');
    expect((await callAdmin(gateway, 'GET', `/api/admin/channels/${channelId}`)).body.data.model_mapping).toEqual({});
    const chain = await callAdmin(gateway, 'PUT', `/api/admin/channels/${channelId}`, { body: { model_mapping: { 'gpt-4o': 'gpt-4o-2024', 'gpt-4o-2024': 'gpt-4o-2024-08-06' } } });
    expect(chain.status, chain.text).toBe(200);
  });

  it('refuses channel settings the relay does not read or of the wrong type, naming the path, as the config file does', async () => {
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...validChannel, name: 'typo', settings: { api: 'respones' } } }), 400, 'settings.api');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...validChannel, name: 'typo', settings: { stream_usage: 'false' } } }), 400, 'settings.stream_usage');
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...validChannel, name: 'typo', settings: { max_token: 5 } } }), 400, 'max_token');
    expectFailure(await callAdmin(gateway, 'PUT', `/api/admin/channels/${channelId}`, { body: { settings: { asset_api: 1 } } }), 400, 'settings.asset_api');
    // An openai-only setting on another type, on the channel as it would be after the update.
    expectFailure(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...validChannel, name: 'typo', type: 'anthropic', settings: { api: 'responses' } } }), 400, 'settings.api', 'openai channels only');
    expect((await callAdmin(gateway, 'PUT', `/api/admin/channels/${channelId}`, { body: { settings: { api: 'responses', max_tokens: 8192 } } })).status).toBe(200);
    expectFailure(await callAdmin(gateway, 'PUT', `/api/admin/channels/${channelId}`, { body: { type: 'anthropic' } }), 400, 'settings.api', 'openai channels only');
    expect((await callAdmin(gateway, 'GET', `/api/admin/channels/${channelId}`)).body.data).toMatchObject({ type: 'openai', settings: { api: 'responses', max_tokens: 8192 } });
    expect((await callAdmin(gateway, 'PUT', `/api/admin/channels/${channelId}`, { body: { settings: {} } })).status).toBe(200);
  });
});

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`admin balance adjustment on ${dialect}`, () => {
    let gateway: TestGateway;

    beforeAll(async () => {
      gateway = await startTestGateway({ dialect });
    });
    afterAll(async () => {
      await gateway?.close();
    });

    it('refuses a take-back that would leave a negative balance, and changes nothing', async () => {
      const user = (await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'henry', quota: 100 } })).body.data;
      expectFailure(await callAdmin(gateway, 'POST', `/api/admin/users/${user.id}/quota`, { body: { delta: -101 } }), 400, 'negative');
      expect((await callAdmin(gateway, 'GET', `/api/admin/users/${user.id}`)).body.data.quota).toBe(100);

      const token = (await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'henry-key', user_id: user.id, quota: 10 } })).body.data;
      expectFailure(await callAdmin(gateway, 'POST', `/api/admin/tokens/${token.id}/quota`, { body: { delta: -11 } }), 400, 'negative');
      expect((await callAdmin(gateway, 'GET', `/api/admin/tokens/${token.id}`)).body.data.quota).toBe(10);
    });

    it('refuses a top-up whose result would pass Number.MAX_SAFE_INTEGER (the balance would no longer be exact), and changes nothing', async () => {
      const nearMax = Number.MAX_SAFE_INTEGER - 1;
      const user = (await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'near-max', quota: nearMax } })).body.data;
      expectFailure(await callAdmin(gateway, 'POST', `/api/admin/users/${user.id}/quota`, { body: { delta: 3 } }), 400, 'delta', 'exceed');
      expect((await callAdmin(gateway, 'GET', `/api/admin/users/${user.id}`)).body.data.quota).toBe(nearMax);
      const filled = await callAdmin(gateway, 'POST', `/api/admin/users/${user.id}/quota`, { body: { delta: 1 } });
      expect(filled.body.data.quota).toBe(Number.MAX_SAFE_INTEGER);

      const token = (await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'near-max-key', user_id: user.id, quota: nearMax } })).body.data;
      expectFailure(await callAdmin(gateway, 'POST', `/api/admin/tokens/${token.id}/quota`, { body: { delta: Number.MAX_SAFE_INTEGER } }), 400, 'delta', 'exceed');
      expect((await callAdmin(gateway, 'GET', `/api/admin/tokens/${token.id}`)).body.data.quota).toBe(nearMax);
    });

    it('applies concurrent take-backs atomically: exactly as many succeed as the balance covers', async () => {
      const user = (await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'iris', quota: 100 } })).body.data;
      const answers = await Promise.all(
        Array.from({ length: 15 }, () => callAdmin(gateway, 'POST', `/api/admin/users/${user.id}/quota`, { body: { delta: -10 } })),
      );
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
      expect(answers.filter((answer) => answer.status === 400)).toHaveLength(5);
      expect((await callAdmin(gateway, 'GET', `/api/admin/users/${user.id}`)).body.data.quota).toBe(0);
    });
  });
}
