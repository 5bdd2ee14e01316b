import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { accountConfig, bearer, billingPaths, getJson, keys, usagePaths } from './account-test-config.js';

describe('account routes: errors', () => {
  let relay: TestGateway;

  beforeAll(async () => {
    relay = await startTestGateway({ config: accountConfig });
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    await relay?.close();
  });

  const failNextTokenRead = () =>
    vi.spyOn(relay.gateway.services.repositories.tokens, 'getWithWallet').mockRejectedValueOnce(new Error('connection to the database was lost'));

  describe('GET /api/usage/token/', () => {
    it.each(usagePaths)('answers 401 "No Authorization header" without the header at %s', async (path) => {
      const response = await getJson(relay.url, path);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ success: false, message: 'No Authorization header' });
    });

    it('treats an empty Authorization header as missing', async () => {
      const response = await getJson(relay.url, '/api/usage/token/', { authorization: '' });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ success: false, message: 'No Authorization header' });
    });

    it.each([
      ['another scheme', `Basic ${keys.limited}`],
      ['no scheme', keys.limited],
      ['an empty Bearer value', 'Bearer'],
      ['a value with spaces', `Bearer ${keys.limited} extra`],
      ['a channel pin that is not a number', `Bearer ${keys.limited}-abc`],
      ['too many dashes', 'Bearer sk-one-2-3'],
    ])('answers 401 "Invalid Bearer token" for %s', async (_case, authorization) => {
      const response = await getJson(relay.url, '/api/usage/token/', { authorization });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ success: false, message: 'Invalid Bearer token' });
    });

    it('answers 401 in the /api envelope for a well-formed key that does not exist', async () => {
      const response = await getJson(relay.url, '/api/usage/token/', bearer(keys.unknown));
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ success: false, message: 'Incorrect API key provided.' });
    });

    it('answers 200 with success false when reading the token fails, as new-api does', async () => {
      failNextTokenRead();
      const response = await getJson(relay.url, '/api/usage/token/', bearer(keys.limited));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: false, message: 'query token usage failed' });
    });
  });

  describe('GET /dashboard/billing/*', () => {
    it.each(billingPaths)('answers the spec §7.3 error object when reading the token fails at %s', async (path) => {
      const read = failNextTokenRead();
      const response = await getJson(relay.url, path, bearer(keys.limited));
      expect(read).toHaveBeenCalledOnce();
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ error: { message: 'query quota failed', type: 'upstream_error', param: '', code: null } });
    });

    it.each(billingPaths)('answers 401 in the OpenAI envelope without a key at %s', async (path) => {
      const response = await getJson(relay.url, path);
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: { type: 'authentication_error', param: null, code: 'invalid_api_key' } });
      expect((response.body as { error: { message: string } }).error.message).toMatch(/^No API key provided\..* \(request id: [0-9a-f]+\)$/);
    });

    it.each(billingPaths)('answers 401 in the OpenAI envelope for an unknown key at %s', async (path) => {
      const response = await getJson(relay.url, path, bearer(keys.unknown));
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key' } });
    });
  });

  it('refuses a token deleted after the catalog was loaded, in each route family envelope', async () => {
    // Deleted by another replica: the row is gone, this process's catalog has not heard yet.
    await relay.gateway.services.database.db.deleteFrom('tokens').where('name', '=', 'exhausted').execute();
    const usage = await getJson(relay.url, '/api/usage/token/', bearer(keys.exhausted));
    expect(usage.status).toBe(401);
    expect(usage.body).toEqual({ success: false, message: 'Incorrect API key provided.' });
    const billing = await getJson(relay.url, '/dashboard/billing/subscription', bearer(keys.exhausted));
    expect(billing.status).toBe(401);
    expect(billing.body).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key' } });
  });
});
