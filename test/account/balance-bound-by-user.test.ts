import OpenAI from 'openai';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callGateway } from '../admin/admin-client.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatStream, chatWhole } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';

/**
 * The balance routes show what a key can spend: a request is refused (402) once either the token or its user
 * runs out, so the figures are the smaller of the two balances (an unlimited token: its user's). They showed
 * the token's alone, so a token allowed more than its user holds showed money its requests could not spend.
 */
const keys = { over: `sk-${'v'.repeat(48)}`, free: `sk-${'w'.repeat(48)}`, own: `sk-${'x'.repeat(48)}`, both: `sk-${'y'.repeat(48)}` };
const channelDefaults = { priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} };

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`balance routes of a key its user's balance bounds (${dialect})`, () => {
    let gateway: TestGateway;
    let upstream: ScriptedUpstream;
    beforeAll(async () => {
      upstream = await startScriptedUpstream();
      gateway = await startTestGateway({
        dialect,
        config: {
          retry_times: 0,
          groups: { default: 1 },
          prices: { 'gpt-4o-mini': { input: 1.5, output: 2.5 } },
          channels: [{ ...channelDefaults, name: 'oa', type: 'openai', base_url: upstream.url, key: 'sk-up-a-0000000000', models: ['gpt-4o-mini'], groups: ['default'] }],
          users: [
            { username: 'poor', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
            { username: 'bob', role: 'user', group: 'default', quota: 20_000_000, enabled: true },
            // A user without a quota is unlimited.
            { username: 'whale', role: 'user', group: 'default', enabled: true },
          ],
          tokens: [
            { name: 'over', user: 'poor', key: keys.over, quota: 1_000_000_000, expires_at: 0, enabled: true },
            { name: 'free', user: 'bob', key: keys.free, unlimited_quota: true, expires_at: 0, enabled: true },
            { name: 'own', user: 'whale', key: keys.own, quota: 3_000_000, expires_at: 0, enabled: true },
            { name: 'both', user: 'whale', key: keys.both, unlimited_quota: true, quota: 7_000, expires_at: 0, enabled: true },
          ],
        },
      });
    });
    afterAll(async () => {
      await gateway?.close();
      await upstream?.close();
    });

    const get = async (key: string, path: string) => (await callGateway(gateway, 'GET', path, { headers: { authorization: `Bearer ${key}` } })).body;
    const db = () => gateway.gateway.services.database.db;
    const rows = async (tokenName: string) => {
      const token = await db().selectFrom('tokens').select(['remain_quota', 'used_quota', 'user_id']).where('name', '=', tokenName).executeTakeFirstOrThrow();
      const user = await db().selectFrom('users').select(['quota']).where('id', '=', token.user_id).executeTakeFirstOrThrow();
      return { remain: Number(token.remain_quota), used: Number(token.used_quota), userQuota: Number(user.quota), userId: token.user_id };
    };
    const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

    it('a token allowed more than its user holds shows the user\'s balance, and 0 once the user\'s is gone (when its requests are 402)', async () => {
      upstream.enqueue(chatWhole({ text: 'hi', usage: { input: 1234, output: 567 } }));
      await client(keys.over).chat.completions.create({ model: 'gpt-4o-mini', max_tokens: 1000, messages: [{ role: 'user', content: 'hello' }] });
      await gateway.settled();
      const row = await rows('over');
      expect(row.used).toBeGreaterThan(0);
      expect(row.userQuota).toBeLessThan(row.remain);
      expect((await get(keys.over, '/api/usage/token/')).data).toMatchObject({
        object: 'token_usage', name: 'over', total_granted: row.used + row.userQuota, total_used: row.used, total_available: row.userQuota, unlimited_quota: false,
      });
      for (const prefix of ['', '/v1']) {
        const limit = (row.used + row.userQuota) / 500_000;
        expect(await get(keys.over, `${prefix}/dashboard/billing/subscription`)).toEqual({ object: 'billing_subscription', has_payment_method: true, soft_limit_usd: limit, hard_limit_usd: limit, system_hard_limit_usd: limit, access_until: 0 });
        expect(await get(keys.over, `${prefix}/dashboard/billing/usage`)).toEqual({ object: 'list', total_usage: (row.used / 500_000) * 100 });
      }

      // The user's balance spent elsewhere (another key, another replica): the key has nothing left to spend.
      await db().updateTable('users').set({ quota: 0 }).where('id', '=', row.userId).execute();
      const refused = await client(keys.over).chat.completions.create({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.APIError);
      expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
      expect((await get(keys.over, '/api/usage/token/')).data).toMatchObject({ total_granted: row.used, total_used: row.used, total_available: 0 });
      expect((await get(keys.over, '/dashboard/billing/subscription')).hard_limit_usd).toBe(row.used / 500_000);
    }, 30_000);

    it('an unlimited token of a limited user shows the user\'s balance, its request in flight counted as used', async () => {
      upstream.enqueue(chatWhole({ text: 'hi', usage: { input: 1000, output: 500 } }));
      await client(keys.free).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
      await gateway.settled();
      const before = (await get(keys.free, '/api/usage/token/')).data;
      const settledRow = await rows('free');
      expect(before).toMatchObject({ name: 'free', total_used: settledRow.used, total_available: settledRow.userQuota, total_granted: settledRow.used + settledRow.userQuota, unlimited_quota: false });
      expect((await get(keys.free, '/dashboard/billing/subscription')).hard_limit_usd).toBe((settledRow.used + settledRow.userQuota) / 500_000);

      upstream.enqueue({ ...chatStream({ text: 'one two three', usage: { input: 10, output: 6 } }), delayMs: 250 });
      const stream = await client(keys.free).chat.completions.create({ model: 'gpt-4o-mini', stream: true, max_tokens: 10_000, messages: [{ role: 'user', content: 'hi' }] });
      const reader = stream[Symbol.asyncIterator]();
      await reader.next();
      await sleep(50);
      const during = (await get(keys.free, '/api/usage/token/')).data;
      const usageDuring = (await get(keys.free, '/dashboard/billing/usage')).total_usage;
      const rowDuring = await rows('free');
      while (!(await reader.next()).done);
      // The reservation left the user's wallet: it is used, not available, and the granted total holds.
      expect(rowDuring.userQuota).toBeLessThan(settledRow.userQuota);
      expect(during.total_available).toBe(rowDuring.userQuota);
      expect(during.total_used).toBe(settledRow.used + (settledRow.userQuota - rowDuring.userQuota));
      expect(during.total_granted).toBe(before.total_granted);
      expect(usageDuring).toBeCloseTo((during.total_used / 500_000) * 100, 9);
    }, 30_000);

    it('a limited token of an unlimited user shows its own balance; with both unlimited, new-api\'s figures', async () => {
      upstream.enqueue(chatWhole({ text: 'hi', usage: { input: 100, output: 50 } }));
      await client(keys.own).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
      await gateway.settled();
      const own = await rows('own');
      expect((await get(keys.own, '/api/usage/token/')).data).toMatchObject({ total_granted: 3_000_000, total_used: own.used, total_available: own.remain, unlimited_quota: false });
      expect((await get(keys.own, '/dashboard/billing/subscription')).hard_limit_usd).toBe(6);

      expect((await get(keys.both, '/api/usage/token/')).data).toMatchObject({ total_granted: 7_000, total_used: 0, total_available: 7_000, unlimited_quota: true });
      expect((await get(keys.both, '/dashboard/billing/subscription')).hard_limit_usd).toBe(100_000_000);
      expect(await get(keys.both, '/dashboard/billing/usage')).toEqual({ object: 'list', total_usage: 0 });
    });
  });
}
