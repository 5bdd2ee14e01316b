import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { testDialects } from '../support/test-databases.js';
import { bearer, farFuture, getJson, keys, usagePaths, accountConfig } from './account-test-config.js';

describe.each(testDialects)('account routes on %s', (dialect) => {
  let relay: TestGateway;

  beforeAll(async () => {
    relay = await startTestGateway({ dialect, config: accountConfig });
  });

  afterAll(async () => {
    await relay?.close();
  });

  /** Another replica's ledger moved the balance: the row changes, this process's catalog does not. */
  const setBalance = async (name: string, remainQuota: number, usedQuota: number) => {
    await relay.gateway.services.database.db.updateTable('tokens').set({ remain_quota: remainQuota, used_quota: usedQuota }).where('name', '=', name).execute();
  };

  const setDisplay = async (type: 'USD' | 'CNY' | 'TOKENS', usdExchangeRate = '7') => {
    const { options } = relay.gateway.services.repositories;
    await options.set('quota_display_type', type);
    await options.set('usd_exchange_rate', usdExchangeRate);
    await relay.gateway.services.catalog.changed();
  };

  describe('GET /api/usage/token/', () => {
    it.each(usagePaths)('reports a limited token in quota units at %s', async (path) => {
      await setBalance('limited', 750_000, 0);
      const response = await getJson(relay.url, path, bearer(keys.limited));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        code: true,
        message: 'ok',
        data: {
          object: 'token_usage',
          name: 'limited',
          total_granted: 750_000,
          total_used: 0,
          total_available: 750_000,
          unlimited_quota: false,
          model_limits: { 'gpt-4o-mini': true, 'claude-3-5-haiku': true },
          model_limits_enabled: true,
          expires_at: farFuture,
        },
      });
    });

    it('reports an unlimited token without model limits and with expires_at 0 for never', async () => {
      const response = await getJson(relay.url, '/api/usage/token/', bearer(keys.unlimited));
      expect(response.body).toEqual({
        code: true,
        message: 'ok',
        data: {
          object: 'token_usage',
          name: 'unlimited',
          total_granted: 0,
          total_used: 0,
          total_available: 0,
          unlimited_quota: true,
          model_limits: {},
          model_limits_enabled: false,
          expires_at: 0,
        },
      });
    });

    it('reads the balance from the database, not from the in-memory catalog', async () => {
      await setBalance('limited', 500_000, 250_000);
      const response = await getJson(relay.url, '/api/usage/token/', bearer(keys.limited));
      expect(response.body).toMatchObject({ data: { total_granted: 750_000, total_used: 250_000, total_available: 500_000 } });
    });

    it('still answers for an expired token, which may read but not spend', async () => {
      const response = await getJson(relay.url, '/api/usage/token/', bearer(keys.expired));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ code: true, data: { name: 'expired', total_available: 1_000, expires_at: 1 } });
    });

    it('still answers for an exhausted token', async () => {
      const response = await getJson(relay.url, '/api/usage/token/', bearer(keys.exhausted));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ code: true, data: { name: 'exhausted', total_available: 0, unlimited_quota: false } });
    });

    it('accepts the key without its sk- prefix, as new-api does', async () => {
      const response = await getJson(relay.url, '/api/usage/token/', bearer(keys.limited.slice(3)));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ data: { name: 'limited' } });
    });
  });

  describe('GET /dashboard/billing/*', () => {
    it.each(['', '/v1'])('gives the granted quota in USD by default at %s/dashboard/billing/subscription', async (prefix) => {
      await setBalance('limited', 500_000, 250_000);
      await setDisplay('USD');
      const response = await getJson(relay.url, `${prefix}/dashboard/billing/subscription`, bearer(keys.limited));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: 1.5,
        hard_limit_usd: 1.5,
        system_hard_limit_usd: 1.5,
        access_until: farFuture,
      });
    });

    it.each(['', '/v1'])('gives the used quota in cents of USD at %s/dashboard/billing/usage', async (prefix) => {
      await setBalance('limited', 500_000, 250_000);
      await setDisplay('USD');
      const response = await getJson(relay.url, `${prefix}/dashboard/billing/usage`, bearer(keys.limited));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ object: 'list', total_usage: 50 });
    });

    it('reports 100000000 for an unlimited token, with access_until 0 for never', async () => {
      await setDisplay('USD');
      await setBalance('unlimited', 0, 1_000_000);
      expect((await getJson(relay.url, '/v1/dashboard/billing/subscription', bearer(keys.unlimited))).body).toEqual({
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: 100_000_000,
        hard_limit_usd: 100_000_000,
        system_hard_limit_usd: 100_000_000,
        access_until: 0,
      });
      expect((await getJson(relay.url, '/v1/dashboard/billing/usage', bearer(keys.unlimited))).body).toEqual({ object: 'list', total_usage: 200 });
    });

    it('follows a balance change in the database at once', async () => {
      await setDisplay('USD');
      await setBalance('limited', 500_000, 250_000);
      expect((await getJson(relay.url, '/dashboard/billing/usage', bearer(keys.limited))).body).toEqual({ object: 'list', total_usage: 50 });
      await setBalance('limited', 1_000_000, 500_000);
      expect((await getJson(relay.url, '/dashboard/billing/subscription', bearer(keys.limited))).body).toMatchObject({ hard_limit_usd: 3 });
      expect((await getJson(relay.url, '/dashboard/billing/usage', bearer(keys.limited))).body).toEqual({ object: 'list', total_usage: 100 });
    });

    it('converts to CNY with the site exchange rate', async () => {
      await setBalance('limited', 500_000, 250_000);
      await setDisplay('CNY', '7');
      expect((await getJson(relay.url, '/dashboard/billing/subscription', bearer(keys.limited))).body).toMatchObject({
        soft_limit_usd: 10.5,
        hard_limit_usd: 10.5,
        system_hard_limit_usd: 10.5,
      });
      expect((await getJson(relay.url, '/dashboard/billing/usage', bearer(keys.limited))).body).toEqual({ object: 'list', total_usage: 350 });
    });

    it('reports raw quota units when the display type is TOKENS', async () => {
      await setBalance('limited', 500_000, 250_000);
      await setDisplay('TOKENS');
      expect((await getJson(relay.url, '/dashboard/billing/subscription', bearer(keys.limited))).body).toMatchObject({ hard_limit_usd: 750_000 });
      expect((await getJson(relay.url, '/dashboard/billing/usage', bearer(keys.limited))).body).toEqual({ object: 'list', total_usage: 25_000_000 });
      await setDisplay('USD');
    });
  });
});
