import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { callAdmin, callGateway, logIn, type RequestOptions } from './admin-client.js';

/**
 * From the admin audit: ids, filters and integers the admin API takes are checked against what the columns
 * hold, on every database (ids past int4 were a 500 on PostgreSQL: now 404 for a path id, 400 naming the
 * field otherwise); an admin (not root) session may not erase the request log.
 */
describe.each(allDialects)('admin API limits on $dialect', ({ dialect, available }) => {
  describe.skipIf(!available)('', () => {
    let gateway: TestGateway;
    let adminSession: string;
    const asAdmin = (options: RequestOptions = {}): RequestOptions => ({
      ...options,
      headers: { cookie: adminSession, 'content-type': 'application/json', ...options.headers },
    });

    beforeAll(async () => {
      gateway = await startTestGateway({
        dialect,
        config: { users: [{ username: 'moderator', password: 'moderator-password', role: 'admin', group: 'default', enabled: true }] },
      });
      adminSession = await logIn(gateway, 'moderator', 'moderator-password');
    });
    afterAll(async () => {
      await gateway?.close();
    });

    it('answers 404 (never 500) for an id the path accepts but no row can have', async () => {
      for (const resource of ['users', 'tokens', 'channels']) {
        const answer = await callAdmin(gateway, 'GET', `/api/admin/${resource}/3000000000`);
        expect(answer.status, `${resource}: ${answer.text}`).toBe(404);
      }
    });

    it('refuses (400 naming the field), never 500, a log filter past a 32-bit column', async () => {
      for (const name of ['user_id', 'token_id', 'channel_id', 'status']) {
        const answer = await callAdmin(gateway, 'GET', `/api/admin/logs?${name}=3000000000`);
        expect({ status: answer.status, message: answer.body.message }, answer.text).toEqual({ status: 400, message: expect.stringContaining(name) });
        expect((await callAdmin(gateway, 'GET', `/api/admin/logs?${name}=2147483647`)).status).toBe(200);
      }
    });

    it('answers an empty page (or a 400), never 500, to a far page number', async () => {
      for (const path of ['/api/admin/users', '/api/admin/tokens', '/api/admin/channels', '/api/admin/logs']) {
        const answer = await callAdmin(gateway, 'GET', `${path}?p=999999999999999&page_size=100`);
        expect([200, 400], `${path}: ${answer.status} ${answer.text}`).toContain(answer.status);
      }
    });

    it('refuses (400 naming the field) a token owner id no user can have, never 500', async () => {
      const answer = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'far-owner', user_id: 3000000000 } });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.message).toContain('user_id');
    });

    it('refuses (400 naming the field) a channel weight or priority past a 32-bit integer column', async () => {
      const base = { type: 'openai', base_url: 'https://api.example.com', key: 'sk-upstream-limits-0000000000', models: ['gpt-4o'] };
      for (const [field, value] of [['weight', 3000000000], ['priority', 3000000000], ['priority', 1e300]] as const) {
        const answer = await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...base, name: `c-${field}-${value}`, [field]: value } });
        expect(answer.status, `${field}=${value}: ${answer.text}`).toBe(400);
        expect(answer.body.message).toContain(field);
      }
    });

    it('refuses an admin (not root) session deleting the request log, as prices and groups (new-api: root only)', async () => {
      const answer = await callGateway(gateway, 'DELETE', `/api/admin/logs?before=${Date.now() + 60_000}`, asAdmin());
      expect(answer.status, answer.text).toBe(403);
    });
  });
});
