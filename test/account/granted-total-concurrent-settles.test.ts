import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callGateway } from '../admin/admin-client.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatWhole } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';

/**
 * From the balance audit (session 30): the granted total (`total_granted`, `hard_limit_usd`) stays the same
 * while requests reserve and settle. The routes read the token row and its open reservations in two queries
 * on two connections; on PostgreSQL and MySQL a settle committing between them made the total dip (a charge
 * gone from the reservations, not yet in used) or rise (counted reserved and used). One statement, one
 * snapshot. SQLite's single connection never showed it; it runs there too. The second key is an unlimited
 * token of a limited user, whose figures come from the user's row: read in the same statement, or a
 * reservation taken from the user between two reads would make the total dip.
 */
const keys = { limited: `sk-${'g'.repeat(48)}`, userBound: `sk-${'h'.repeat(48)}` };
const granted = 50_000_000;
const channelDefaults = { priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: true, settings: {} };

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`account routes: the granted total under concurrent settles (${dialect})`, () => {
    let gateway: TestGateway;
    let upstream: ScriptedUpstream;
    beforeAll(async () => {
      upstream = await startScriptedUpstream();
      upstream.setFallback(chatWhole({ text: 'ok', usage: { input: 3, output: 2 } }));
      gateway = await startTestGateway({
        dialect,
        config: {
          groups: { default: 1 },
          prices: { 'gpt-4o-mini': { input: 1, output: 2 } },
          channels: [{ ...channelDefaults, name: 'oa', type: 'openai', base_url: upstream.url, key: 'sk-up-a-0000000000', models: ['gpt-4o-mini'], groups: ['default'] }],
          users: [
            { username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true },
            { username: 'bob', role: 'user', group: 'default', quota: granted, enabled: true },
          ],
          tokens: [
            { name: 'alice', user: 'alice', key: keys.limited, quota: granted, expires_at: 0, enabled: true },
            { name: 'bob', user: 'bob', key: keys.userBound, unlimited_quota: true, expires_at: 0, enabled: true },
          ],
        },
      });
    });
    afterAll(async () => {
      await gateway?.close();
      await upstream?.close();
    });

    it.each([
      ['a limited token', keys.limited],
      ['an unlimited token of a limited user', keys.userBound],
    ])('total_granted and hard_limit_usd of %s never move while requests reserve and settle', async (_, key) => {
      let running = true;
      const seen = new Set<number>();
      const seenHard = new Set<number>();
      const poller = (async () => {
        while (running) {
          const [usage, sub] = await Promise.all([
            callGateway(gateway, 'GET', '/api/usage/token/', { headers: { authorization: `Bearer ${key}` } }),
            callGateway(gateway, 'GET', '/dashboard/billing/subscription', { headers: { authorization: `Bearer ${key}` } }),
          ]);
          seen.add(usage.body.data.total_granted);
          seenHard.add(sub.body.hard_limit_usd);
        }
      })();
      const pollers = [poller];
      for (let i = 0; i < 3; i += 1) {
        pollers.push(
          (async () => {
            while (running) {
              const usage = await callGateway(gateway, 'GET', '/api/usage/token/', { headers: { authorization: `Bearer ${key}` } });
              seen.add(usage.body.data.total_granted);
            }
          })(),
        );
      }
      const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      for (let round = 0; round < 30; round += 1) {
        await Promise.all(Array.from({ length: 20 }, () => client.chat.completions.create({ model: 'gpt-4o-mini', max_tokens: 100_000, messages: [{ role: 'user', content: 'hi' }] })));
      }
      running = false;
      await Promise.all(pollers);
      await gateway.settled();
      expect(seen.size).toBeGreaterThan(0);
      expect([...seen].sort()).toEqual([granted]);
      expect([...seenHard].sort()).toEqual([granted / 500_000]);
    }, 120_000);
  });
}
