import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, callGateway, logIn, type RequestOptions } from './admin-client.js';

/**
 * An admin console session manages ordinary users only (user-routes.ts); token writes follow the same rule,
 * checked against the token's current owner and any new one. Its own tokens are the one exception.
 */
describe('admin API security: which tokens an admin session may write', () => {
  let gateway: TestGateway;
  let adminSession: string;
  let rootId: number;
  let moderatorId: number;
  let otherAdminId: number;
  let aliceId: number;
  let rootTokenId: number;
  let otherAdminTokenId: number;

  const asAdmin = (options: RequestOptions = {}): RequestOptions => ({
    ...options,
    headers: { cookie: adminSession, 'content-type': 'application/json', ...options.headers },
  });

  beforeAll(async () => {
    gateway = await startTestGateway({
      config: {
        users: [
          { username: 'moderator', password: 'moderator-password', role: 'admin', group: 'default', enabled: true },
          { username: 'admin2', password: 'admin2-password', role: 'admin', group: 'default', enabled: true },
          { username: 'alice', password: 'alice-password', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
        ],
      },
    });
    adminSession = await logIn(gateway, 'moderator', 'moderator-password');
    const users = (await callAdmin(gateway, 'GET', '/api/admin/users?page_size=100')).body.data.items as { id: number; username: string; role: string }[];
    rootId = users.find((user) => user.role === 'root')!.id;
    moderatorId = users.find((user) => user.username === 'moderator')!.id;
    otherAdminId = users.find((user) => user.username === 'admin2')!.id;
    aliceId = users.find((user) => user.username === 'alice')!.id;
    rootTokenId = (await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'root-key', user_id: rootId } })).body.data.id;
    otherAdminTokenId = (await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'admin2-key', user_id: otherAdminId, quota: 100 } })).body.data.id;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const tokenOf = async (id: number) => (await callAdmin(gateway, 'GET', `/api/admin/tokens/${id}`)).body.data;

  it('refuses to create a token owned by the root user, named by id or by username', async () => {
    const byId = await callGateway(gateway, 'POST', '/api/admin/tokens', asAdmin({ body: { name: 'stolen-root-key', user_id: rootId } }));
    expect(byId.status, byId.text).toBe(403);
    expect(byId.body).toEqual({ success: false, message: expect.stringContaining('ordinary users') });
    const byName = await callGateway(gateway, 'POST', '/api/admin/tokens', asAdmin({ body: { name: 'stolen-root-key', user: 'root' } }));
    expect(byName.status).toBe(403);
    const tokens = (await callAdmin(gateway, 'GET', `/api/admin/tokens?user_id=${rootId}`)).body.data.items as { name: string }[];
    expect(tokens.map((token) => token.name)).toEqual(['root-key']);
  });

  it("refuses to create a token for another admin", async () => {
    expect((await callGateway(gateway, 'POST', '/api/admin/tokens', asAdmin({ body: { name: 'x', user_id: otherAdminId } }))).status).toBe(403);
  });

  it('gives a token created with no owner to the logged-in admin itself, never to root', async () => {
    const answer = await callGateway(gateway, 'POST', '/api/admin/tokens', asAdmin({ body: { name: 'ownerless-key' } }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data.user_id).toBe(moderatorId);
  });

  it('still gives a token created with the admin key and no owner to the root user', async () => {
    const answer = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'admin-key-made' } });
    expect(answer.body.data.user_id).toBe(rootId);
  });

  it("lets an admin manage its own tokens and an ordinary user's", async () => {
    const own = (await callGateway(gateway, 'POST', '/api/admin/tokens', asAdmin({ body: { name: 'own-key', quota: 10 } }))).body.data;
    expect((await callGateway(gateway, 'POST', `/api/admin/tokens/${own.id}/quota`, asAdmin({ body: { delta: 5 } }))).status).toBe(200);
    expect((await callGateway(gateway, 'POST', `/api/admin/tokens/${own.id}/key`, asAdmin())).status).toBe(200);
    const alices = await callGateway(gateway, 'POST', '/api/admin/tokens', asAdmin({ body: { name: 'alice-key', user_id: aliceId, quota: 10 } }));
    expect(alices.status).toBe(200);
    expect((await callGateway(gateway, 'PUT', `/api/admin/tokens/${alices.body.data.id}`, asAdmin({ body: { enabled: false } }))).status).toBe(200);
    expect((await callGateway(gateway, 'DELETE', `/api/admin/tokens/${alices.body.data.id}`, asAdmin())).status).toBe(200);
  });

  it("refuses to regenerate the key of a root user's token, and the old key stays", async () => {
    const before = await tokenOf(rootTokenId);
    const answer = await callGateway(gateway, 'POST', `/api/admin/tokens/${rootTokenId}/key`, asAdmin());
    expect(answer.status, answer.text).toBe(403);
    expect(answer.text).not.toContain('"key"');
    expect((await tokenOf(rootTokenId)).key_prefix).toBe(before.key_prefix);
  });

  it("refuses to change, disable, top up or delete a root user's token", async () => {
    expect((await callGateway(gateway, 'PUT', `/api/admin/tokens/${rootTokenId}`, asAdmin({ body: { enabled: false } }))).status).toBe(403);
    expect((await callGateway(gateway, 'PUT', `/api/admin/tokens/${rootTokenId}`, asAdmin({ body: { user_id: aliceId } }))).status).toBe(403);
    expect((await callGateway(gateway, 'POST', `/api/admin/tokens/${rootTokenId}/quota`, asAdmin({ body: { delta: 5 } }))).status).toBe(403);
    expect((await callGateway(gateway, 'DELETE', `/api/admin/tokens/${rootTokenId}`, asAdmin())).status).toBe(403);
    expect(await tokenOf(rootTokenId)).toMatchObject({ enabled: true, user_id: rootId });
  });

  it("refuses to manage another admin's tokens", async () => {
    expect((await callGateway(gateway, 'POST', `/api/admin/tokens/${otherAdminTokenId}/quota`, asAdmin({ body: { delta: 1_000_000 } }))).status).toBe(403);
    expect((await callGateway(gateway, 'POST', `/api/admin/tokens/${otherAdminTokenId}/key`, asAdmin())).status).toBe(403);
    expect((await tokenOf(otherAdminTokenId)).quota).toBe(100);
  });

  it('refuses to move a token onto the root user or another admin', async () => {
    const own = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'alice-key-move', user_id: aliceId, quota: 10 } });
    for (const target of [{ user_id: rootId }, { user: 'root' }, { user_id: otherAdminId }]) {
      const moved = await callGateway(gateway, 'PUT', `/api/admin/tokens/${own.body.data.id}`, asAdmin({ body: target }));
      expect(moved.status, JSON.stringify(target)).toBe(403);
    }
    expect((await tokenOf(own.body.data.id)).user_id).toBe(aliceId);
  });

  it('lets the admin key and a root session write any token', async () => {
    expect((await callAdmin(gateway, 'POST', `/api/admin/tokens/${otherAdminTokenId}/quota`, { body: { delta: 1 } })).status).toBe(200);
    expect((await callAdmin(gateway, 'PUT', `/api/admin/users/${rootId}`, { body: { password: 'root-password' } })).status).toBe(200);
    const rootSession = await logIn(gateway, 'root', 'root-password');
    const answer = await callGateway(gateway, 'POST', `/api/admin/tokens/${otherAdminTokenId}/quota`, { body: { delta: 1 }, headers: { cookie: rootSession } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data.quota).toBe(102);
  });

  it('may not raise its own wallet or role', async () => {
    expect((await callGateway(gateway, 'POST', `/api/admin/users/${moderatorId}/quota`, asAdmin({ body: { delta: 1000 } }))).status).toBe(403);
    expect((await callGateway(gateway, 'PUT', `/api/admin/users/${moderatorId}`, asAdmin({ body: { role: 'root' } }))).status).toBe(403);
    expect((await callGateway(gateway, 'PUT', `/api/admin/users/${moderatorId}`, asAdmin({ body: { unlimited_quota: true } }))).status).toBe(403);
  });
});
