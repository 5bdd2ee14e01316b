import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdmin, callGateway, logIn } from '../admin/admin-client.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/**
 * CSRF hardening: a cross-site HTML form can send the browser's cookies with text/plain, urlencoded or
 * multipart bodies, never application/json. So every write a console session authenticates must be JSON.
 */
describe('console-session writes must be JSON (415 otherwise)', () => {
  let gateway: TestGateway;
  let adminSession: string;
  let userSession: string;

  beforeAll(async () => {
    gateway = await startTestGateway({
      config: {
        users: [
          { username: 'moderator', password: 'moderator-password', role: 'admin', group: 'default', enabled: true },
          { username: 'ordinary', password: 'ordinary-password', role: 'user', group: 'default', enabled: true },
        ],
      },
    });
    adminSession = await logIn(gateway, 'moderator', 'moderator-password');
    userSession = await logIn(gateway, 'ordinary', 'ordinary-password');
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const usernames = async () => ((await callAdmin(gateway, 'GET', '/api/admin/users?page_size=100')).body.data.items as { username: string }[]).map((user) => user.username);

  it('refuses what a form can send to an admin write, in the /api envelope, and writes nothing', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const answer = await callGateway(gateway, 'POST', '/api/admin/users', {
        rawBody: JSON.stringify({ username: 'csrf-made', role: 'user' }),
        headers: { cookie: adminSession, 'content-type': contentType },
      });
      expect(answer.status, contentType).toBe(415);
      expect(answer.body).toEqual({ success: false, message: expect.stringContaining('application/json') });
    }
    expect(await usernames()).not.toContain('csrf-made');
  });

  it('refuses a bodyless session write without the JSON content type, and accepts it with one', async () => {
    const user = await callGateway(gateway, 'POST', '/api/admin/users', { body: { username: 'doomed' }, headers: { cookie: adminSession } });
    expect(user.status).toBe(200);
    const path = `/api/admin/users/${user.body.data.id}`;
    expect((await callGateway(gateway, 'DELETE', path, { headers: { cookie: adminSession } })).status).toBe(415);
    const deleted = await callGateway(gateway, 'DELETE', path, { headers: { cookie: adminSession, 'content-type': 'application/json' } });
    expect(deleted.status, deleted.text).toBe(200);
  });

  it('accepts JSON with a charset, and session reads need no content type', async () => {
    const created = await callGateway(gateway, 'POST', '/api/admin/users', {
      rawBody: JSON.stringify({ username: 'made-by-console' }),
      headers: { cookie: adminSession, 'content-type': 'application/json; charset=utf-8' },
    });
    expect(created.status, created.text).toBe(200);
    expect((await callGateway(gateway, 'GET', '/api/admin/users', { headers: { cookie: adminSession } })).status).toBe(200);
  });

  it('leaves admin-key calls alone: any content type is read as JSON, as before', async () => {
    const answer = await callAdmin(gateway, 'POST', '/api/admin/users', { rawBody: JSON.stringify({ username: 'made-by-key' }), headers: { 'content-type': 'text/plain' } });
    expect(answer.status, answer.text).toBe(200);
  });

  it('answers an ordinary user 403 before judging the content type', async () => {
    const answer = await callGateway(gateway, 'POST', '/api/admin/users', { rawBody: '{}', headers: { cookie: userSession, 'content-type': 'text/plain' } });
    expect(answer.status).toBe(403);
  });

  it('lets a logout through with any content type (a forged one could only end sessions)', async () => {
    const session = await logIn(gateway, 'ordinary', 'ordinary-password');
    const answer = await callGateway(gateway, 'POST', '/api/user/logout', { rawBody: '{}', headers: { cookie: session, 'content-type': 'text/plain' } });
    expect(answer.status).toBe(200);
    expect((await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie: session } })).status).toBe(401);
  });
});
