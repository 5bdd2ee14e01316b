import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, callGateway, logIn } from '../admin/admin-client.js';

const keys = {
  limited: `sk-${'a'.repeat(48)}`,
  unlimited: `sk-${'b'.repeat(48)}`,
  vip: `sk-${'c'.repeat(48)}`,
};
const farFuture = 4_102_444_800;
const bulk = Array.from({ length: 25 }, (_unused, index) => `bulk-${String(index).padStart(2, '0')}`);
const channelDefaults = { priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: true, settings: {} };

describe('model lists, account routes and the playground through the SDKs', () => {
  let gateway: TestGateway;
  let upstream: FakeOpenaiUpstream;
  let expectedDefault: string[];

  const chat = (key: string, model = 'gpt-4o-mini') =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }),
    });

  beforeAll(async () => {
    upstream = await startFakeOpenaiUpstream();
    const prices: NonNullable<ConfigFile['prices']> = {};
    for (const model of ['gpt-4o-mini', 'gpt-4o', 'shared', 'claude-x', 'org/model-x', 'vip-model', 'hidden-model', ...bulk]) prices[model] = { input: 1, output: 2 };
    gateway = await startTestGateway({
      config: {
        groups: { default: 1, vip: 0.5 },
        prices,
        channels: [
          { ...channelDefaults, name: 'oa', type: 'openai', base_url: upstream.url, key: 'sk-upstream-a-000000000000', models: ['gpt-4o-mini', 'gpt-4o', 'shared', 'org/model-x', 'unpriced-model'], groups: ['default'] },
          { ...channelDefaults, name: 'an', type: 'anthropic', base_url: 'http://127.0.0.1:9', key: 'sk-upstream-b-000000000000', models: ['claude-x', 'shared'], groups: ['default'], priority: 5 },
          { ...channelDefaults, name: 'off', type: 'openai', base_url: upstream.url, key: 'sk-upstream-c-000000000000', models: ['hidden-model'], groups: ['default'], enabled: false },
          { ...channelDefaults, name: 'vip', type: 'openai', base_url: upstream.url, key: 'sk-upstream-d-000000000000', models: ['vip-model'], groups: ['vip'] },
          { ...channelDefaults, name: 'bulk', type: 'openai', base_url: upstream.url, key: 'sk-upstream-e-000000000000', models: bulk, groups: ['default'] },
        ],
        users: [
          { username: 'alice', password: 'alice-password', role: 'user', group: 'default', quota: 10_000_000, enabled: true },
          { username: 'broke', password: 'broke-password', role: 'user', group: 'default', quota: 0, enabled: true },
          // Root: only root's keys may name a group other than their user's (the `vip` key below).
          { username: 'boss', password: 'boss-password', role: 'root', group: 'default', enabled: true },
        ],
        tokens: [
          { name: 'limited', user: 'alice', key: keys.limited, quota: 750_000, model_limits: ['gpt-4o-mini', 'claude-x', 'not-served'], expires_at: farFuture, enabled: true },
          { name: 'unlimited', user: 'alice', key: keys.unlimited, unlimited_quota: true, expires_at: 0, enabled: true },
          { name: 'vip', user: 'boss', key: keys.vip, group: 'vip', unlimited_quota: true, expires_at: 0, enabled: true },
        ],
      },
    });
    expectedDefault = ['claude-x', 'gpt-4o', 'gpt-4o-mini', 'org/model-x', 'shared', ...bulk].sort();
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  describe('model lists (spec §4.2, §2.5, §5.3; protocols.md §10)', () => {
    it('OpenAI SDK models.list: shape 2.5, usable models only, no duplicates', async () => {
      const client = new OpenAI({ apiKey: keys.unlimited, baseURL: `${gateway.url}/v1` });
      const ids: string[] = [];
      for await (const model of client.models.list()) {
        expect(model).toMatchObject({ object: 'model', id: expect.any(String), created: expect.any(Number), owned_by: expect.any(String) });
        ids.push(model.id);
      }
      expect(new Set(ids).size).toBe(ids.length);
      // 'unpriced-model' has no price and allow_unpriced_models is off: it is not usable (400 price_not_configured), so not listed.
      expect(ids.sort()).toEqual(expectedDefault);
    });

    it('does not list an unpriced model, which chat refuses', async () => {
      const answer = await chat(keys.unlimited, 'unpriced-model');
      expect(answer.status).toBe(400);
      const list = await callGateway(gateway, 'GET', '/v1/models', { headers: { authorization: `Bearer ${keys.unlimited}` } });
      expect(list.body.data.map((model: { id: string }) => model.id)).not.toContain('unpriced-model');
    });

    it('OpenAI SDK models.retrieve, including a model id with a slash', async () => {
      const client = new OpenAI({ apiKey: keys.unlimited, baseURL: `${gateway.url}/v1` });
      expect(await client.models.retrieve('gpt-4o')).toMatchObject({ id: 'gpt-4o', object: 'model' });
      expect(await client.models.retrieve('org/model-x')).toMatchObject({ id: 'org/model-x', object: 'model' });
      await expect(client.models.retrieve('hidden-model')).rejects.toMatchObject({ status: 404 });
    });

    it('Anthropic SDK models.list pages through every model once (x-api-key + anthropic-version)', async () => {
      const client = new Anthropic({ apiKey: keys.unlimited, baseURL: gateway.url });
      const ids: string[] = [];
      for await (const model of client.models.list()) {
        expect(model).toMatchObject({ type: 'model', id: expect.any(String), display_name: expect.any(String), created_at: expect.any(String) });
        ids.push(model.id);
      }
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(expectedDefault);
      const retrieved = await client.models.retrieve('claude-x');
      expect(retrieved).toMatchObject({ type: 'model', id: 'claude-x' });
    });

    it('@google/genai models.list pages through every model once (/v1beta/models)', async () => {
      const client = new GoogleGenAI({ apiKey: keys.unlimited, httpOptions: { baseUrl: gateway.url } });
      const names: string[] = [];
      const pager = await client.models.list({ config: { pageSize: 7 } });
      for await (const model of pager) names.push(model.name ?? '');
      expect(new Set(names).size).toBe(names.length);
      expect(names.sort()).toEqual(expectedDefault.map((id) => `models/${id}`).sort());
    });

    it('picks the Gemini style on /v1/models with ?key= and the OpenAI style on /v1beta/openai/models', async () => {
      const gemini = await callGateway(gateway, 'GET', `/v1/models?key=${keys.unlimited}&pageSize=1000`);
      expect(gemini.status).toBe(200);
      expect(gemini.body.models.map((model: { name: string }) => model.name).sort()).toEqual(expectedDefault.map((id) => `models/${id}`).sort());
      const openaiStyle = await callGateway(gateway, 'GET', '/v1beta/openai/models', { headers: { authorization: `Bearer ${keys.unlimited}` } });
      expect(openaiStyle.body.object).toBe('list');
      expect(openaiStyle.body.data.map((model: { id: string }) => model.id).sort()).toEqual(expectedDefault);
    });

    it('keeps only model_limits ∩ usable models, and a vip key sees only vip channels', async () => {
      const limited = await callGateway(gateway, 'GET', '/v1/models', { headers: { authorization: `Bearer ${keys.limited}` } });
      expect(limited.body.data.map((model: { id: string }) => model.id)).toEqual(['claude-x', 'gpt-4o-mini']);
      const vip = await callGateway(gateway, 'GET', '/v1/models', { headers: { authorization: `Bearer ${keys.vip}` } });
      expect(vip.body.data.map((model: { id: string }) => model.id)).toEqual(['vip-model']);
    });
  });

  describe('account routes (spec §2.9–2.11, §4.11; new-api §6)', () => {
    it('limited token: /api/usage/token/ and both billing routes agree with the admin view after spending', async () => {
      expect((await chat(keys.limited)).status).toBe(200);
      await gateway.settled();
      const tokens = (await callAdmin(gateway, 'GET', '/api/admin/tokens?page_size=100')).body.data.items as { name: string; quota: number; used_quota: number }[];
      const admin = tokens.find((token) => token.name === 'limited')!;
      expect(admin.used_quota).toBeGreaterThan(0);
      expect(admin.quota + admin.used_quota).toBe(750_000);

      const usage = await callGateway(gateway, 'GET', '/api/usage/token/', { headers: { authorization: `Bearer ${keys.limited}` } });
      expect(usage.body).toEqual({
        code: true,
        message: 'ok',
        data: {
          object: 'token_usage',
          name: 'limited',
          total_granted: 750_000,
          total_used: admin.used_quota,
          total_available: admin.quota,
          unlimited_quota: false,
          model_limits: expect.any(Object),
          model_limits_enabled: true,
          expires_at: farFuture,
        },
      });
      expect(Object.keys(usage.body.data.model_limits).sort()).toEqual(['claude-x', 'gpt-4o-mini', 'not-served']);

      for (const prefix of ['', '/v1']) {
        const subscription = await callGateway(gateway, 'GET', `${prefix}/dashboard/billing/subscription`, { headers: { authorization: `Bearer ${keys.limited}` } });
        expect(subscription.body).toEqual({ object: 'billing_subscription', has_payment_method: true, soft_limit_usd: 1.5, hard_limit_usd: 1.5, system_hard_limit_usd: 1.5, access_until: farFuture });
        const billed = await callGateway(gateway, 'GET', `${prefix}/dashboard/billing/usage`, { headers: { authorization: `Bearer ${keys.limited}` } });
        expect(billed.body.object).toBe('list');
        expect(billed.body.total_usage).toBeCloseTo((admin.used_quota / 500_000) * 100, 12);
      }
    });

    it('answers model_limits as new-api does, a map of model name to true (spec §2.9 writes an integer; new-api clients read booleans)', async () => {
      const usage = await callGateway(gateway, 'GET', '/api/usage/token/', { headers: { authorization: `Bearer ${keys.limited}` } });
      expect(usage.body.data.model_limits).toEqual({ 'claude-x': true, 'gpt-4o-mini': true, 'not-served': true });
    });

    it('unlimited token of a limited user: the user\'s balance is its limit, usage in cents of USD, access_until 0', async () => {
      expect((await chat(keys.unlimited)).status).toBe(200);
      await gateway.settled();
      const tokens = (await callAdmin(gateway, 'GET', '/api/admin/tokens?page_size=100')).body.data.items as { name: string; used_quota: number }[];
      const used = tokens.find((token) => token.name === 'unlimited')!.used_quota;
      const users = (await callAdmin(gateway, 'GET', '/api/admin/users?page_size=100')).body.data.items as { username: string; quota: number }[];
      const alice = users.find((user) => user.username === 'alice')!.quota;
      const limit = (used + alice) / 500_000;
      const subscription = await callGateway(gateway, 'GET', '/v1/dashboard/billing/subscription', { headers: { authorization: `Bearer ${keys.unlimited}` } });
      expect(subscription.body).toMatchObject({ hard_limit_usd: limit, soft_limit_usd: limit, system_hard_limit_usd: limit, access_until: 0 });
      const billed = await callGateway(gateway, 'GET', '/v1/dashboard/billing/usage', { headers: { authorization: `Bearer ${keys.unlimited}` } });
      expect(billed.body.total_usage).toBeCloseTo((used / 500_000) * 100, 12);
      const usage = await callGateway(gateway, 'GET', '/api/usage/token/', { headers: { authorization: `Bearer ${keys.unlimited}` } });
      expect(usage.body.data).toMatchObject({ unlimited_quota: false, total_used: used, total_available: alice, model_limits: {}, model_limits_enabled: false, expires_at: 0 });
    });

    it('unlimited token of an unlimited user: limit 100000000, as new-api', async () => {
      const subscription = await callGateway(gateway, 'GET', '/v1/dashboard/billing/subscription', { headers: { authorization: `Bearer ${keys.vip}` } });
      expect(subscription.body).toMatchObject({ hard_limit_usd: 100_000_000, soft_limit_usd: 100_000_000, system_hard_limit_usd: 100_000_000, access_until: 0 });
      const usage = await callGateway(gateway, 'GET', '/api/usage/token/', { headers: { authorization: `Bearer ${keys.vip}` } });
      expect(usage.body.data).toMatchObject({ unlimited_quota: true });
    });

    it('spec §7.1–7.2: the two fixed /api/usage/token/ messages', async () => {
      expect((await callGateway(gateway, 'GET', '/api/usage/token/')).body).toEqual({ success: false, message: 'No Authorization header' });
      expect((await callGateway(gateway, 'GET', '/api/usage/token/', { headers: { authorization: 'Basic abc' } })).body).toEqual({ success: false, message: 'Invalid Bearer token' });
    });
  });

  describe('/pg/chat/completions (spec §4.1, §5.5)', () => {
    it('answers 401 without a session, refuses API keys, and bills the wallet of the logged-in user (402 when it is empty)', async () => {
      const none = await callGateway(gateway, 'POST', '/pg/chat/completions', { body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } });
      expect(none.status).toBe(401);
      expect(none.body.error).toMatchObject({ message: expect.any(String) });
      const withKey = await callGateway(gateway, 'POST', '/pg/chat/completions', {
        body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        headers: { authorization: `Bearer ${keys.unlimited}` },
      });
      expect(withKey.status).toBe(401);

      const users = async () => (await callAdmin(gateway, 'GET', '/api/admin/users?page_size=100')).body.data.items as { username: string; quota: number; used_quota: number }[];
      const before = (await users()).find((user) => user.username === 'alice')!;
      const session = await logIn(gateway, 'alice', 'alice-password');
      const answer = await callGateway(gateway, 'POST', '/pg/chat/completions', { body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }, headers: { cookie: session } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.object).toBe('chat.completion');
      await gateway.settled();
      const after = (await users()).find((user) => user.username === 'alice')!;
      expect(after.used_quota).toBeGreaterThan(before.used_quota);
      expect(before.quota - after.quota).toBe(after.used_quota - before.used_quota);

      const brokeSession = await logIn(gateway, 'broke', 'broke-password');
      const broke = await callGateway(gateway, 'POST', '/pg/chat/completions', { body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }, headers: { cookie: brokeSession } });
      expect(broke.status).toBe(402);
    });
  });
});
