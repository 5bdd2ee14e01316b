/**
 * From the side audit: `/api/user/self` answered the balance (quota, used_quota, request_count) of the
 * in-memory catalog, which a charge does not reload: it stayed at the last load's figures. The session is
 * still checked against the catalog; the balance is the user's row, as the account routes read theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, callGateway, logIn } from '../admin/admin-client.js';

const key = `sk-${'s'.repeat(48)}`;
const channelDefaults = { priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: true, settings: {} };

describe('/api/user/self shows the current balance', () => {
  let gateway: TestGateway;
  let upstream: FakeOpenaiUpstream;

  beforeAll(async () => {
    upstream = await startFakeOpenaiUpstream();
    gateway = await startTestGateway({
      config: {
        prices: { 'gpt-4o-mini': { input: 1, output: 2 } },
        channels: [{ ...channelDefaults, name: 'oa', type: 'openai', base_url: upstream.url, key: 'sk-upstream-a-000000000000', models: ['gpt-4o-mini'], groups: ['default'] }],
        users: [{ username: 'carol', password: 'carol-password', role: 'user', group: 'default', quota: 10_000_000, enabled: true }],
        tokens: [{ name: 'k', user: 'carol', key, quota: 5_000_000, expires_at: 0, enabled: true }],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  const carolRow = async () => {
    const users = await callAdmin(gateway, 'GET', '/api/admin/users');
    return (users.body.data.items ?? users.body.data).find((user: { username: string }) => user.username === 'carol');
  };

  it('reports quota, used_quota and request_count after charged requests (not the figures of the last catalog load)', async () => {
    const session = await logIn(gateway, 'carol', 'carol-password');
    const before = await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie: session } });
    expect(before.body.data).toMatchObject({ username: 'carol', role: 'user', group: 'default', quota: 10_000_000, used_quota: 0, request_count: 0 });

    for (let i = 0; i < 2; i += 1) {
      const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }),
      });
      expect(answer.status).toBe(200);
      await answer.text();
    }
    await gateway.settled();

    const row = await carolRow();
    expect(row.used_quota).toBeGreaterThan(0);
    expect(row.request_count).toBe(2);
    const after = await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie: session } });
    expect(after.body.data).toMatchObject({ quota: row.quota, used_quota: row.used_quota, request_count: row.request_count, unlimited_quota: false });
    expect(after.body.data.quota).toBeLessThan(10_000_000);
  });
});
