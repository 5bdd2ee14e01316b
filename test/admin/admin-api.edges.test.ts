import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, type ApiAnswer } from './admin-client.js';

/** Edges of /api/admin/*: odd bodies and paths, concurrent creation, paging and filters, changes that must take effect at once, secrets. */
describe('admin API edges', () => {
  let gateway: TestGateway;
  let upstream: FakeOpenaiUpstream;
  let aliceId: number;
  let rootTokenKey: string;

  const chat = (key: string, model = 'gpt-4o-mini') =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }),
    });

  beforeAll(async () => {
    upstream = await startFakeOpenaiUpstream();
    gateway = await startTestGateway({
      config: {
        prices: { 'gpt-4o-mini': { input: 1, output: 2 } },
        channels: [{ name: 'main', type: 'openai', base_url: upstream.url, key: 'sk-upstream-edges-secret-key-0001', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: true, settings: {} }],
        users: [{ username: 'alice', password: 'alice-password', role: 'user', group: 'default', quota: 1_000_000, enabled: true }],
      },
    });
    const users = (await callAdmin(gateway, 'GET', '/api/admin/users?page_size=100')).body.data.items as { id: number; username: string }[];
    aliceId = users.find((user) => user.username === 'alice')!.id;
    rootTokenKey = (await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'root-key' } })).body.data.key;
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  describe('validation: bad bodies and paths are 400 with a message, never 500', () => {
    it('answers 400 (not 500) to JSON bodies that are not objects', async () => {
      for (const rawBody of ['[]', '"text"', '42', 'true', '[{"name":"x"}]']) {
        const answer = await callAdmin(gateway, 'POST', '/api/admin/channels', { rawBody });
        expect(answer.status, `${rawBody}: ${answer.text}`).toBe(400);
        expect(answer.body.success).toBe(false);
      }
    });

    it('answers 400 (not 500) to a malformed percent-encoded path parameter', async () => {
      const answer = await callAdmin(gateway, 'GET', '/api/admin/prices/%E0%A4%A');
      expect(answer.status, answer.text).toBeLessThan(500);
    });

    it('a model_mapping loop is refused when the channel is saved, or at the latest answered with a clear non-500 error', async () => {
      const answer = await callAdmin(gateway, 'POST', '/api/admin/channels', {
        body: { name: 'loopy', type: 'openai', base_url: upstream.url, key: 'sk-loop-key-000000000', models: ['loop-a'], model_mapping: { 'loop-a': 'loop-b', 'loop-b': 'loop-a' } },
      });
      if (answer.status === 200) {
        await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'loop-a', input: 1 } });
        const relayed = await chat(rootTokenKey, 'loop-a');
        const text = await relayed.text();
        expect(relayed.status, text).not.toBe(500);
        expect(relayed.status, text).not.toBe(200);
      } else {
        expect(answer.status).toBe(400);
      }
    });
  });

  describe('conflicts: names stay unique under concurrent creation, never a 500', () => {
    const expectOneWinner = (answers: ApiAnswer[]) => {
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200), String(statuses)).toHaveLength(1);
      for (const status of statuses) expect([200, 409]).toContain(status);
    };

    it('channels', async () => {
      const body = { name: 'race-channel', type: 'openai', base_url: upstream.url, key: 'sk-race-key-0000000000', models: ['race-model'] };
      expectOneWinner(await Promise.all(Array.from({ length: 8 }, () => callAdmin(gateway, 'POST', '/api/admin/channels', { body }))));
      const list = await callAdmin(gateway, 'GET', '/api/admin/channels?page_size=100');
      expect(list.body.data.items.filter((channel: { name: string }) => channel.name === 'race-channel')).toHaveLength(1);
    });

    it('users', async () => {
      expectOneWinner(await Promise.all(Array.from({ length: 8 }, () => callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'race-user', quota: 5 } }))));
    });

    it('tokens of one user', async () => {
      expectOneWinner(await Promise.all(Array.from({ length: 8 }, () => callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'race-token', user_id: aliceId, quota: 5 } }))));
      const list = await callAdmin(gateway, 'GET', `/api/admin/tokens?user_id=${aliceId}&page_size=100`);
      expect(list.body.data.items.filter((token: { name: string }) => token.name === 'race-token')).toHaveLength(1);
    });

    it('prices and groups (create-only routes must not silently overwrite)', async () => {
      const prices = await Promise.all([1, 2, 3, 4].map((input) => callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'race-price', input } })));
      expectOneWinner(prices);
      const groups = await Promise.all([1, 2, 3, 4].map((ratio) => callAdmin(gateway, 'POST', '/api/admin/groups', { body: { name: 'race-group', ratio } })));
      expectOneWinner(groups);
    });
  });

  describe('pagination and filters', () => {
    it('pages users with a correct total and caps page_size at 100', async () => {
      const all = await callAdmin(gateway, 'GET', '/api/admin/users?page_size=1000');
      expect(all.body.data.page_size).toBe(100);
      expect(all.body.data.total).toBe(all.body.data.items.length);
      const beyond = await callAdmin(gateway, 'GET', '/api/admin/users?p=999');
      expect(beyond.status).toBe(200);
      expect(beyond.body.data.items).toEqual([]);
      expect(beyond.body.data.total).toBe(all.body.data.total);
      expect(Object.keys(beyond.body.data).sort()).toEqual(['items', 'page', 'page_size', 'total']);
    });

    it('filters logs by token and status, with a total that counts the filtered rows', async () => {
      const token = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'log-probe', user_id: aliceId, quota: 100_000 } });
      for (let index = 0; index < 3; index += 1) expect((await chat(token.body.data.key)).status).toBe(200);
      expect((await chat(token.body.data.key, 'no-such-model')).status).toBe(400);
      await gateway.settled();
      const ok = await callAdmin(gateway, 'GET', `/api/admin/logs?token_id=${token.body.data.id}&status=200&page_size=2`);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.data.total).toBe(3);
      expect(ok.body.data.items).toHaveLength(2);
      const secondPage = await callAdmin(gateway, 'GET', `/api/admin/logs?token_id=${token.body.data.id}&status=200&page_size=2&p=2`);
      expect(secondPage.body.data.items).toHaveLength(1);
      expect(JSON.stringify(ok.body)).not.toContain('sk-upstream-edges-secret-key-0001');
      expect(JSON.stringify(ok.body)).not.toContain(token.body.data.key);
    });

    it('answers 400 to a non-integer log filter', async () => {
      const answer = await callAdmin(gateway, 'GET', '/api/admin/logs?status=ok');
      expect(answer.status).toBe(400);
    });
  });

  describe('changes take effect for relaying at once', () => {
    it('a disabled token, a regenerated key, a disabled user, a disabled channel, a zeroed balance', async () => {
      const user = await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'effect-user', quota: 10_000_000 } });
      const token = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'effect-key', user_id: user.body.data.id, quota: 5_000_000 } });
      const id = token.body.data.id;
      let key = token.body.data.key as string;
      expect((await chat(key)).status).toBe(200);

      await callAdmin(gateway, 'PUT', `/api/admin/tokens/${id}`, { body: { enabled: false } });
      expect((await chat(key)).status).toBe(401);
      await callAdmin(gateway, 'PUT', `/api/admin/tokens/${id}`, { body: { enabled: true } });
      expect((await chat(key)).status).toBe(200);

      const regenerated = await callAdmin(gateway, 'POST', `/api/admin/tokens/${id}/key`);
      expect((await chat(key)).status).toBe(401);
      key = regenerated.body.data.key;
      expect((await chat(key)).status).toBe(200);

      await callAdmin(gateway, 'PUT', `/api/admin/users/${user.body.data.id}`, { body: { enabled: false } });
      expect((await chat(key)).status).toBe(403);
      await callAdmin(gateway, 'PUT', `/api/admin/users/${user.body.data.id}`, { body: { enabled: true } });

      await gateway.settled();
      const before = (await callAdmin(gateway, 'GET', `/api/admin/tokens/${id}`)).body.data.quota as number;
      const zeroed = await callAdmin(gateway, 'POST', `/api/admin/tokens/${id}/quota`, { body: { delta: -before } });
      expect(zeroed.status, zeroed.text).toBe(200);
      expect(zeroed.body.data.quota).toBe(0);
      expect((await chat(key)).status).toBe(402);
      const topped = await callAdmin(gateway, 'POST', `/api/admin/tokens/${id}/quota`, { body: { delta: 1_234_567 } });
      expect(topped.body.data.quota).toBe(1_234_567);
      const usage = await fetch(`${gateway.url}/api/usage/token/`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.json() as Promise<{ data: { total_available: number } }>);
      expect(usage.data.total_available).toBe(1_234_567);

      const channels = (await callAdmin(gateway, 'GET', '/api/admin/channels')).body.data.items as { id: number; name: string }[];
      const main = channels.find((channel) => channel.name === 'main')!;
      await callAdmin(gateway, 'PUT', `/api/admin/channels/${main.id}`, { body: { enabled: false } });
      const refused = await chat(key);
      expect([400, 503]).toContain(refused.status);
      await callAdmin(gateway, 'PUT', `/api/admin/channels/${main.id}`, { body: { enabled: true } });
      expect((await chat(key)).status).toBe(200);
    });
  });

  describe('secrets', () => {
    it('never answers a channel key in a channel test failure message', async () => {
      const secret = 'sk-edges-secret-that-upstream-refuses-XYZW';
      const channel = await callAdmin(gateway, 'POST', '/api/admin/channels', {
        body: { name: 'refused-key', type: 'openai', base_url: upstream.url, key: secret, models: ['gpt-4o-mini'], auto_disable: false, enabled: false },
      });
      upstream.enqueueFault({ kind: 'status', status: 401, body: { error: { message: `Incorrect API key provided: ${secret}.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } });
      const tested = await callAdmin(gateway, 'POST', `/api/admin/channels/${channel.body.data.id}/test`);
      expect(tested.text).not.toContain(secret);
    });

    it("never passes an upstream error that echoes the channel key on to the API client (new-api masks upstream secrets)", async () => {
      const user = await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'leak-user', quota: 10_000_000 } });
      const token = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'leak-key', user_id: user.body.data.id, quota: 5_000_000 } });
      upstream.enqueueFault({ kind: 'status', status: 400, body: { error: { message: 'Bad request for key sk-upstream-edges-secret-key-0001', type: 'invalid_request_error', param: null, code: null } } });
      const answer = await chat(token.body.data.key);
      const text = await answer.text();
      expect(answer.status).toBe(400);
      expect(text).not.toContain('sk-upstream-edges-secret-key-0001');
    });
  });
});
