import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdmin } from './admin-client.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatStream } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';

/**
 * From the admin audit: balance changes through the admin API while requests are in flight, on every database —
 * a take-back removes only what is not reserved, the unused part comes back at settlement, no balance goes
 * below 0, and a user deleted mid-stream still has its request settled and logged.
 */
describe.each(allDialects)('admin balance changes with requests in flight on $dialect', ({ dialect, available }) => {
  describe.skipIf(!available)('', () => {
    const key = `sk-${'a'.repeat(48)}`;
    const bobKey = `sk-${'b'.repeat(48)}`;
    let gateway: TestGateway;
    let upstream: ScriptedUpstream;
    beforeAll(async () => {
      upstream = await startScriptedUpstream();
      gateway = await startTestGateway({
        dialect,
        config: {
          prices: { 'gpt-4o-mini': { input: 1, output: 2 } },
          channels: [{ name: 'oa', type: 'openai', base_url: upstream.url, key: 'sk-up-a-0000000000', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
          users: [
            { username: 'alice', role: 'user', group: 'default', quota: 50_000_000, enabled: true },
            { username: 'bob', role: 'user', group: 'default', quota: 50_000_000, enabled: true },
          ],
          tokens: [
            { name: 'a', user: 'alice', key, quota: 20_000_000, expires_at: 0, enabled: true },
            { name: 'b', user: 'bob', key: bobKey, quota: 20_000_000, expires_at: 0, enabled: true },
          ],
        },
      });
    });
    afterAll(async () => {
      await gateway?.close();
      await upstream?.close();
    });

    const start = async (as: string) => {
      upstream.enqueue({ ...chatStream({ text: 'one two three', usage: { input: 10, output: 6 } }), delayMs: 300 });
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, max_tokens: 1000, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const reader = response.body!.getReader();
      await reader.read();
      return { status: response.status, finish: async () => { while (!(await reader.read()).done); } };
    };
    const token = async (name: string) => ((await callAdmin(gateway, 'GET', '/api/admin/tokens?page_size=100')).body.data.items as any[]).find((t) => t.name === name);
    const user = async (name: string) => ((await callAdmin(gateway, 'GET', '/api/admin/users?page_size=100')).body.data.items as any[]).find((u) => u.username === name);

    it('a take-back cannot reach what is reserved; the settle hands back the unused part, no balance goes below 0, nothing is lost', async () => {
      const before = await token('a');
      const userBefore = await user('alice');
      const call = await start(key);
      await sleep(50);
      const during = await token('a');
      const reserved = before.quota - during.quota;
      expect(reserved).toBeGreaterThan(0);
      // Take back everything not reserved: allowed; one unit more is refused.
      const takeAll = await callAdmin(gateway, 'POST', `/api/admin/tokens/${before.id}/quota`, { body: { delta: -during.quota } });
      expect(takeAll.status, takeAll.text).toBe(200);
      const oneMore = await callAdmin(gateway, 'POST', `/api/admin/tokens/${before.id}/quota`, { body: { delta: -1 } });
      expect(oneMore.status).toBe(400);
      const userDuring = await user('alice');
      const takeUser = await callAdmin(gateway, 'POST', `/api/admin/users/${userBefore.id}/quota`, { body: { delta: -userDuring.quota } });
      expect(takeUser.status, takeUser.text).toBe(200);
      await call.finish();
      await gateway.settled();
      const after = await token('a');
      const userAfter = await user('alice');
      expect(after.quota).toBeGreaterThanOrEqual(0);
      expect(userAfter.quota).toBeGreaterThanOrEqual(0);
      const charged = after.used_quota - before.used_quota;
      expect(charged).toBeGreaterThan(0);
      expect(after.quota).toBe(reserved - charged);
      expect(userAfter.quota).toBe(reserved - charged);
    });

    it('a user deleted mid-request: the answer completes, the reservation is settled, the channel is credited', async () => {
      const bob = await user('bob');
      const channelBefore = (await callAdmin(gateway, 'GET', '/api/admin/channels')).body.data.items[0];
      const call = await start(bobKey);
      await sleep(50);
      const deleted = await callAdmin(gateway, 'DELETE', `/api/admin/users/${bob.id}`);
      expect(deleted.status, deleted.text).toBe(200);
      await call.finish();
      await gateway.settled();
      const channelAfter = (await callAdmin(gateway, 'GET', '/api/admin/channels')).body.data.items[0];
      expect(channelAfter.request_count).toBe(channelBefore.request_count + 1);
      expect(channelAfter.used_quota).toBeGreaterThan(channelBefore.used_quota);
      const logs = (await callAdmin(gateway, 'GET', `/api/admin/logs?user_id=${bob.id}`)).body.data.items as any[];
      expect(logs).toHaveLength(1);
      expect(logs[0].quota).toBeGreaterThan(0);
    });
  });
});
