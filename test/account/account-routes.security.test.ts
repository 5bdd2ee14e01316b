import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/security/api-keys.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { accountConfig, bearer, billingPaths, getJson, keys, usagePaths } from './account-test-config.js';

describe('account routes: security', () => {
  let relay: TestGateway;

  beforeAll(async () => {
    relay = await startTestGateway({ config: accountConfig });
  });

  afterAll(async () => {
    await relay?.close();
  });

  describe.each(usagePaths)('%s', (path) => {
    it('refuses a disabled token with 401', async () => {
      const response = await getJson(relay.url, path, bearer(keys.disabled));
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ success: false, message: 'This API key has been disabled.' });
    });

    it('refuses a token of a disabled user with 403', async () => {
      const response = await getJson(relay.url, path, bearer(keys.bannedUser));
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ success: false, message: 'The user of this API key has been disabled.' });
    });

    it('reads the key from the Authorization header only', async () => {
      const elsewhere: { headers: Record<string, string>; query: string }[] = [
        { headers: { 'x-api-key': keys.limited }, query: '' },
        { headers: { 'x-goog-api-key': keys.limited }, query: `?key=${keys.limited}` },
      ];
      for (const request of elsewhere) {
        const response = await getJson(relay.url, `${path}${request.query}`, request.headers);
        expect(response.status).toBe(401);
        expect(response.body).toEqual({ success: false, message: 'No Authorization header' });
      }
    });
  });

  describe.each(billingPaths)('%s', (path) => {
    it('refuses a disabled token with 401', async () => {
      const response = await getJson(relay.url, path, bearer(keys.disabled));
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: { type: 'authentication_error', code: 'token_disabled' } });
    });

    it('refuses a token of a disabled user with 403', async () => {
      const response = await getJson(relay.url, path, bearer(keys.bannedUser));
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ error: { type: 'permission_error', code: 'user_disabled' } });
    });

    it('refuses an expired token, unlike the read-only usage route', async () => {
      const response = await getJson(relay.url, path, bearer(keys.expired));
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: { type: 'authentication_error', code: 'token_expired' } });
    });
  });

  it('refuses a token disabled in the database before this process has reloaded its catalog', async () => {
    await relay.gateway.services.database.db.updateTable('tokens').set({ status: 2 }).where('name', '=', 'unlimited').execute();
    try {
      const usage = await getJson(relay.url, '/api/usage/token/', bearer(keys.unlimited));
      expect(usage.status).toBe(401);
      expect(usage.body).toEqual({ success: false, message: 'This API key has been disabled.' });
      for (const path of billingPaths) {
        const response = await getJson(relay.url, path, bearer(keys.unlimited));
        expect(response.status).toBe(401);
        expect(response.body).toMatchObject({ error: { code: 'token_disabled' } });
      }
    } finally {
      await relay.gateway.services.database.db.updateTable('tokens').set({ status: 1 }).where('name', '=', 'unlimited').execute();
    }
  });

  it('never echoes the key, its hash or its visible prefix', async () => {
    for (const path of [...usagePaths, ...billingPaths]) {
      const response = await fetch(`${relay.url}${path}`, { headers: bearer(keys.limited) });
      expect(response.status).toBe(200);
      const text = await response.text();
      for (const secret of [keys.limited, keys.limited.slice(3, 20), hashApiKey(keys.limited), keys.limited.slice(-4)]) expect(text).not.toContain(secret);
    }
  });
});
