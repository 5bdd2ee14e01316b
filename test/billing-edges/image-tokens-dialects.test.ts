import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyAsAsked, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { buildClientRequest, callerKey, channelConfig, quotaPerUnit } from './billing-fixture.js';
import { callAdmin } from '../admin/admin-client.js';

/**
 * Image prices on every database (from the image-prices audit): the log row's image columns are written by
 * each dialect's insert, the charge takes the image prices, and the admin API validates, keeps and clears them.
 */
const usage: WireUsage = { input: 1500, cacheRead: 300, imageIn: 1000, output: 1400, imageOut: 1290 };
// (200×2 + 1000×4 + 300×0.2 + 110×12 + 1290×120) = 400 + 4000 + 60 + 1320 + 154800 = 160,580 $ per 1M
// tokens → $0.16058, at the default quota units per dollar.
const expected = Math.round((160_580 * quotaPerUnit) / 1_000_000);

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`image prices on ${dialect}`, () => {
    let gateway: TestGateway;
    let upstream: ScriptedUpstream;
    beforeAll(async () => {
      upstream = await startScriptedUpstream({ fallback: replyAsAsked('gemini', { text: ['Hi'], usage }) });
      gateway = await startTestGateway({
        dialect,
        config: {
          prices: { painter: { input: 2, output: 12, cache_read: 0.2, image_input: 4, image_output: 120 } },
          channels: [channelConfig('gem', 'gemini', upstream.url, 1, ['painter'])],
          users: [{ username: 'payer', role: 'user', group: 'default', enabled: true, quota: 100_000_000 }],
          tokens: [{ name: 'payer-key', user: 'payer', key: callerKey, expires_at: 0, enabled: true, quota: 100_000_000 }],
        } as never,
      });
    });
    afterAll(async () => {
      await gateway?.close();
      await upstream?.close();
    });

    it('writes image_input_tokens / image_output_tokens and charges the image prices', async () => {
      for (const stream of [true, false]) {
        const { url, init } = buildClientRequest(gateway.url, 'gemini', 'painter', stream, 2000);
        const answer = await fetch(url, init);
        expect(answer.status).toBe(200);
        await answer.text();
      }
      await gateway.settled();
      const rows = await gateway.gateway.services.database.db.selectFrom('logs').selectAll().orderBy('id').execute();
      expect(rows.map((row) => [Number(row.quota), Number(row.image_input_tokens), Number(row.image_output_tokens)])).toEqual([[expected, 1000, 1290], [expected, 1000, 1290]]);
    });

    it('admin: image prices reject negatives and strings, take decimals, clear with null', async () => {
      expect((await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'neg', input: 1, image_output: -1 } })).status).toBe(400);
      expect((await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'str', input: 1, image_input: '5' } })).status).toBe(400);
      expect((await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'null', input: 1, image_input: null } })).status).toBe(400);
      const created = await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'dec', input: 1, image_input: 0.123456789, image_output: 120.5 } });
      expect(created.status).toBe(200);
      expect(created.body.data).toMatchObject({ image_input: 0.123456789, image_output: 120.5 });
      expect((await callAdmin(gateway, 'PUT', '/api/admin/prices/dec', { body: { image_output: -3 } })).status).toBe(400);
      expect((await callAdmin(gateway, 'PUT', '/api/admin/prices/dec', { body: { image_input: 'x' } })).status).toBe(400);
      const cleared = await callAdmin(gateway, 'PUT', '/api/admin/prices/dec', { body: { image_input: null, image_output: null } });
      expect(cleared.body.data).toMatchObject({ image_input: null, image_output: null });
      const reread = await callAdmin(gateway, 'GET', '/api/admin/prices/dec');
      expect(reread.body.data).toMatchObject({ input: 1, image_input: null, image_output: null });
      expect(gateway.gateway.services.catalog.snapshot.prices.get('dec')).toEqual({ model: 'dec', input: 1 });
    });
  });
}
