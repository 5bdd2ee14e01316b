import { GoogleGenAI } from '@google/genai';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdmin, callGateway } from '../admin/admin-client.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatStream, chatWhole } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/** From the account audit: balances while a request runs, the models of a pinned key, and which key header wins. */
const keys = { admin: `sk-${'r'.repeat(48)}`, user: `sk-${'u'.repeat(48)}`, other: `sk-${'o'.repeat(48)}` };
const granted = 750_000;
const channelDefaults = { priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: true, settings: {} };

let gateway: TestGateway;
let upstream: ScriptedUpstream;
let vipChannelId: number;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startTestGateway({
    config: {
      groups: { default: 1, vip: 1 },
      prices: { 'gpt-4o-mini': { input: 1, output: 2 }, 'vip-model': { input: 1, output: 2 }, 'org/model-x': { input: 1, output: 2 } },
      channels: [
        { ...channelDefaults, name: 'oa', type: 'openai', base_url: upstream.url, key: 'sk-up-a-0000000000', models: ['gpt-4o-mini', 'org/model-x'], groups: ['default'] },
        { ...channelDefaults, name: 'vip', type: 'openai', base_url: upstream.url, key: 'sk-up-b-0000000000', models: ['vip-model'], groups: ['vip'] },
      ],
      users: [
        { username: 'boss', password: 'boss-password', role: 'admin', group: 'default', enabled: true },
        { username: 'alice', password: 'alice-password', role: 'user', group: 'default', quota: 10_000_000, enabled: true },
        { username: 'olga', password: 'olga-password', role: 'user', group: 'default', quota: 10_000_000, enabled: true },
      ],
      tokens: [
        { name: 'boss', user: 'boss', key: keys.admin, unlimited_quota: true, expires_at: 0, enabled: true },
        { name: 'alice', user: 'alice', key: keys.user, quota: granted, expires_at: 0, enabled: true },
        { name: 'olga', user: 'olga', key: keys.other, quota: granted, expires_at: 0, enabled: true },
      ],
    },
  });
  const channels = (await callAdmin(gateway, 'GET', '/api/admin/channels?page_size=100')).body.data.items as { id: number; name: string }[];
  vipChannelId = channels.find((channel) => channel.name === 'vip')!.id;
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const usage = async (key = keys.user) => (await callGateway(gateway, 'GET', '/api/usage/token/', { headers: { authorization: `Bearer ${key}` } })).body.data;
const subscription = async () => (await callGateway(gateway, 'GET', '/dashboard/billing/subscription', { headers: { authorization: `Bearer ${keys.user}` } })).body;

describe('balances while a request runs', () => {
  it('total_granted and hard_limit_usd stay at the granted amount; what is reserved counts as used until it settles', async () => {
    upstream.enqueue({ ...chatStream({ text: 'one two three four five six', usage: { input: 10, output: 6 } }), delayMs: 250 });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.user}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, max_tokens: 100_000, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const reader = response.body!.getReader();
    await reader.read();
    await sleep(100);
    const during = await usage();
    const subDuring = await subscription();
    expect({ granted: during.total_granted, hard: subDuring.hard_limit_usd }).toEqual({ granted, hard: granted / 500_000 });
    expect(during.total_used + during.total_available).toBe(granted);
    expect(during.total_used).toBeGreaterThan(0);
    while (!(await reader.read()).done);
    await gateway.settled();
    const after = await usage();
    expect(after.total_granted).toBe(granted);
    // 10 × 1 + 6 × 2 per 1M tokens, × 500 000: 11 units.
    expect(after.total_used).toBeLessThan(during.total_used);
    expect(after.total_used).toBe(11);
  });

  it('right after an answer the granted total is whole; once settled, the exact charge', async () => {
    await gateway.settled();
    const before = await usage();
    upstream.enqueue(chatWhole({ text: 'ok', usage: { input: 1000, output: 1000 } }));
    const answer = await callGateway(gateway, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${keys.user}` }, body: { model: 'gpt-4o-mini', max_tokens: 5000, messages: [{ role: 'user', content: 'hi' }] } });
    expect(answer.status).toBe(200);
    expect((await usage()).total_granted).toBe(granted);
    await gateway.settled();
    const settled = await usage();
    expect(settled.total_used - before.total_used).toBe(1500);
    const admin = (await callAdmin(gateway, 'GET', '/api/admin/tokens?page_size=100')).body.data.items.find((token: { name: string }) => token.name === 'alice');
    expect({ available: settled.total_available, used: settled.total_used }).toEqual({ available: admin.quota, used: admin.used_quota });
  });
});

describe('model lists', () => {
  it('a key pinned to a channel outside its group lists that channel’s models, which chat through the pin serves', async () => {
    const pinned = `${keys.admin}-${vipChannelId}`;
    upstream.enqueue(chatWhole({ text: 'ok', usage: { input: 1, output: 1 } }));
    const chat = await callGateway(gateway, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${pinned}` }, body: { model: 'vip-model', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] } });
    expect(chat.status).toBe(200);
    const list = await callGateway(gateway, 'GET', '/v1/models', { headers: { authorization: `Bearer ${pinned}` } });
    expect(list.body.data.map((model: { id: string }) => model.id)).toEqual(['vip-model']);
    expect((await callGateway(gateway, 'GET', '/v1/models/vip-model', { headers: { authorization: `Bearer ${pinned}` } })).status).toBe(200);
  });

  it('@google/genai models.get reads one model, a slashed id included, and not one the key cannot use', async () => {
    const client = new GoogleGenAI({ apiKey: keys.user, httpOptions: { baseUrl: gateway.url } });
    expect(await client.models.get({ model: 'gpt-4o-mini' })).toMatchObject({ name: 'models/gpt-4o-mini' });
    expect(await client.models.get({ model: 'models/org/model-x' })).toMatchObject({ name: 'models/org/model-x' });
    await expect(client.models.get({ model: 'vip-model' })).rejects.toMatchObject({ status: 404 });
  });
});

describe('which key a request is charged to when it sends two', () => {
  it('a style’s own key header wins over Authorization (new-api copies it onto Authorization): x-api-key on /v1/messages, x-goog-api-key on Gemini', async () => {
    const spent = async () => Promise.all([usage(keys.user), usage(keys.other)]).then(([user, other]) => ({ user: user.total_used as number, other: other.total_used as number }));
    await gateway.settled();
    const before = await spent();
    upstream.enqueue(chatWhole({ text: 'ok', usage: { input: 1000, output: 0 } }), chatWhole({ text: 'ok', usage: { input: 1000, output: 0 } }));
    const messages = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': keys.user, authorization: `Bearer ${keys.other}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(messages.status).toBe(200);
    const gemini = await fetch(`${gateway.url}/v1beta/models/gpt-4o-mini:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': keys.user, authorization: `Bearer ${keys.other}`, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect(gemini.status).toBe(200);
    await gateway.settled();
    const after = await spent();
    expect(after.other - before.other).toBe(0);
    expect(after.user - before.user).toBe(1000);
  });
});
