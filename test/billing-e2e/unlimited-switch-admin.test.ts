/**
 * From the limits audit: switching a wallet between unlimited and limited through the admin API while one
 * of its streams is in flight neither gains nor loses quota nobody spent (the switch moves the open
 * reservations' amounts: balance-across-unlimited-switch.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { replyAsAsked } from '../fakes/scripted-vendor-wire.js';
import { channelConfig } from '../billing-edges/billing-fixture.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin } from '../admin/admin-client.js';

const key = `sk-${'u'.repeat(48)}`;
const key2 = `sk-${'v'.repeat(48)}`;
const startingBalance = 1_000_000_000;
let upstream: ScriptedUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  // Slow stream: five events 400 ms apart, so the admin call lands while the request is in flight.
  upstream = await startScriptedUpstream({ fallback: (request) => ({ ...replyAsAsked('openai-chat', { text: ['He', 'll', 'o', '!'], usage: { input: 10, output: 4 } })(request), delayMs: 400 }) });
  gateway = await startTestGateway({
    config: {
      prices: { 'gpt-x': { input: 3, output: 15 } },
      channels: [channelConfig('main', 'openai-chat', upstream.url, 0, ['gpt-x'])],
      users: [{ username: 'payer', role: 'user', group: 'default', quota: startingBalance, enabled: true }],
      tokens: [
        { name: 'k1', user: 'payer', key, quota: startingBalance, unlimited_quota: true, expires_at: 0, enabled: true },
        { name: 'k2', user: 'payer', key: key2, quota: startingBalance, unlimited_quota: false, expires_at: 0, enabled: true },
      ],
    },
  });
}, 30_000);
afterAll(async () => {
  await gateway.close();
  await upstream.close();
}, 30_000);

async function token(name: string) {
  await gateway.settled();
  const row = await gateway.gateway.services.database.db.selectFrom('tokens').select(['id', 'remain_quota', 'used_quota']).where('name', '=', name).executeTakeFirstOrThrow();
  return { id: Number(row.id), remain: Number(row.remain_quota), used: Number(row.used_quota) };
}

function streamChat(apiKey: string): Promise<string> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-x', stream: true, max_tokens: 1000, messages: [{ role: 'user', content: 'Say hello' }] }),
  }).then((response) => response.text());
}

describe('unlimited_quota switched through the admin API while a request is in flight', () => {
  it('unlimited → limited mid-request: the token balance never ends above where it started', async () => {
    const before = await token('k1');
    const pending = streamChat(key);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const put = await callAdmin(gateway, 'PUT', `/api/admin/tokens/${before.id}`, { body: { unlimited_quota: false } });
    expect(put.status).toBe(200);
    await pending;
    const after = await token('k1');
    expect(after.used).toBeGreaterThan(0);
    // Nothing was debited at reservation (unlimited); the settlement must not credit back what was never taken.
    expect(after.remain).toBeLessThanOrEqual(before.remain);
  });

  it('limited → unlimited mid-request: the balance loses at most what the request cost', async () => {
    const before = await token('k2');
    const pending = streamChat(key2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const put = await callAdmin(gateway, 'PUT', `/api/admin/tokens/${before.id}`, { body: { unlimited_quota: true } });
    expect(put.status).toBe(200);
    await pending;
    const after = await token('k2');
    const charged = after.used - before.used;
    expect(charged).toBeGreaterThan(0);
    expect(before.remain - after.remain).toBeLessThanOrEqual(charged);
  });

  it('user limited → unlimited mid-request: the user balance loses at most what the request cost', async () => {
    const db = gateway.gateway.services.database.db;
    const read = async () => {
      await gateway.settled();
      const row = await db.selectFrom('users').select(['id', 'quota', 'used_quota']).where('username', '=', 'payer').executeTakeFirstOrThrow();
      return { id: Number(row.id), quota: Number(row.quota), used: Number(row.used_quota) };
    };
    await callAdmin(gateway, 'PUT', `/api/admin/users/${(await read()).id}`, { body: { unlimited_quota: false } });
    const before = await read();
    const pending = streamChat(key2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await callAdmin(gateway, 'PUT', `/api/admin/users/${before.id}`, { body: { unlimited_quota: true } })).status).toBe(200);
    await pending;
    const after = await read();
    const charged = after.used - before.used;
    expect(charged).toBeGreaterThan(0);
    expect(before.quota - after.quota).toBeLessThanOrEqual(charged);
  });
});
