import { signerFactory } from '@fastify/cookie';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, callGateway, logIn } from './admin-client.js';

const sevenDaysSeconds = 7 * 24 * 60 * 60;

describe('console login sessions', () => {
  let gateway: TestGateway;
  let clock = Date.UTC(2026, 5, 1);

  beforeAll(async () => {
    gateway = await startTestGateway({
      now: () => clock,
      // The test client is the proxy: its X-Forwarded-Proto counts only from a trusted one.
      env: { TRUST_PROXY: 'loopback' },
      config: {
        users: [
          { username: 'ada', password: 'ada-password', role: 'admin', group: 'default', enabled: true },
          { username: 'bob', password: 'bob-password', role: 'user', group: 'default', enabled: true },
          { username: 'eve', password: 'eve-password', role: 'user', group: 'default', enabled: false },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('logs in with a signed, HttpOnly, SameSite=Strict cookie that lasts seven days', async () => {
    const answer = await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'bob', password: 'bob-password' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, message: '', data: { id: expect.any(Number), username: 'bob', role: 'user', group: 'default' } });
    const cookie = answer.headers.getSetCookie().find((line) => line.startsWith('relay_session='));
    expect(cookie).toBeDefined();
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
    expect(cookie).toContain(`Max-Age=${sevenDaysSeconds}`);
    // Signed: the value carries an HMAC after the `userId.expiresAt.sessionVersion` payload.
    const value = decodeURIComponent(cookie?.split(';', 1)[0]?.slice('relay_session='.length) ?? '');
    expect(value).toMatch(new RegExp(`^${answer.body.data.id}\\.${Math.floor(clock / 1000) + sevenDaysSeconds}\\.0\\.[A-Za-z0-9+/]+$`));
  });

  it('answers the logged-in user at /api/user/self', async () => {
    const session = await logIn(gateway, 'bob', 'bob-password');
    const self = await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie: session } });
    expect(self.status).toBe(200);
    expect(self.body.success).toBe(true);
    expect(self.body.data).toMatchObject({ username: 'bob', role: 'user', group: 'default', unlimited_quota: true });
  });

  it('answers 401 at /api/user/self without a session, or with a forged one', async () => {
    const none = await callGateway(gateway, 'GET', '/api/user/self');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ success: false, message: expect.any(String) });

    const session = await logIn(gateway, 'bob', 'bob-password');
    const [, value = ''] = session.split('=');
    const [userId, expiresAt, version, signature] = decodeURIComponent(value).split('.');
    // Claiming to be user 1 (root) with bob's signature must fail.
    const forged = `relay_session=${encodeURIComponent(`1.${expiresAt}.${version}.${signature}`)}`;
    expect((await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie: forged } })).status).toBe(401);
    const unsigned = `relay_session=${userId}.${expiresAt}`;
    expect((await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie: unsigned } })).status).toBe(401);
  });

  it('marks the cookie Secure when the request came over HTTPS through a trusted proxy (TRUST_PROXY)', async () => {
    const response = await fetch(`${gateway.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ username: 'bob', password: 'bob-password' }),
    });
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('relay_session='));
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
  });

  it('logs out by clearing the cookie', async () => {
    const session = await logIn(gateway, 'bob', 'bob-password');
    const answer = await callGateway(gateway, 'POST', '/api/user/logout', { headers: { cookie: session } });
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    const cleared = answer.headers.getSetCookie().find((line) => line.startsWith('relay_session='));
    expect(cleared).toMatch(/^relay_session=;/);
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/);
  });

  it('refuses a wrong password and an unknown user alike with 401', async () => {
    const wrong = await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'bob', password: 'not-bob' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ success: false, message: 'Invalid username or password' });
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const unknown = await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'nobody', password: 'whatever' } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('refuses a login to the passwordless root account', async () => {
    const answer = await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'root', password: '' } });
    expect(answer.status).toBe(400);
    const guessed = await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'root', password: 'root' } });
    expect(guessed.status).toBe(401);
  });

  it('refuses a login body without credentials with 400', async () => {
    const answer = await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'bob' } });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('password');
  });

  it('answers 403 to a disabled user with the right password', async () => {
    const answer = await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'eve', password: 'eve-password' } });
    expect(answer.status).toBe(403);
    expect(answer.body.success).toBe(false);
    expect(answer.headers.getSetCookie()).toEqual([]);
  });

  it('ends the session of a user disabled after logging in, at once', async () => {
    const created = await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'frank', password: 'frank-password' } });
    const session = await logIn(gateway, 'frank', 'frank-password');
    expect((await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie: session } })).status).toBe(200);
    await callAdmin(gateway, 'PUT', `/api/admin/users/${created.body.data.id}`, { body: { enabled: false } });
    expect((await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie: session } })).status).toBe(401);
  });

  it('expires a session after seven days', async () => {
    const session = await logIn(gateway, 'bob', 'bob-password');
    const start = clock;
    try {
      clock = start + sevenDaysSeconds * 1000 - 1_000;
      expect((await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie: session } })).status).toBe(200);
      clock = start + sevenDaysSeconds * 1000 + 1_000;
      expect((await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie: session } })).status).toBe(401);
    } finally {
      clock = start;
    }
  });

  it('lets an admin session use the admin API, and not an ordinary user session', async () => {
    const admin = await logIn(gateway, 'ada', 'ada-password');
    const channels = await callGateway(gateway, 'GET', '/api/admin/channels', { headers: { cookie: admin } });
    expect(channels.status).toBe(200);
    expect(channels.body).toMatchObject({ success: true, data: { items: [], total: 0 } });
    const created = await callGateway(gateway, 'POST', '/api/admin/users', { headers: { cookie: admin }, body: { username: 'from-console' } });
    expect(created.status).toBe(200);

    const user = await logIn(gateway, 'bob', 'bob-password');
    const refused = await callGateway(gateway, 'GET', '/api/admin/channels', { headers: { cookie: user } });
    expect(refused.status).toBe(403);
    expect(refused.body.success).toBe(false);
  });

  describe('ending sessions', () => {
    const selfStatus = async (cookie: string) => (await callGateway(gateway, 'GET', '/api/user/self', { headers: { cookie } })).status;
    const idOf = async (username: string) =>
      ((await callAdmin(gateway, 'GET', '/api/admin/users?page_size=100')).body.data.items as { id: number; username: string }[]).find((user) => user.username === username)!.id;

    it('a logged-out cookie no longer authenticates, and the logout ends the user\'s other sessions too', async () => {
      const first = await logIn(gateway, 'bob', 'bob-password');
      const second = await logIn(gateway, 'bob', 'bob-password');
      expect(await selfStatus(first)).toBe(200);
      await callGateway(gateway, 'POST', '/api/user/logout', { headers: { cookie: first } });
      expect(await selfStatus(first)).toBe(401);
      expect(await selfStatus(second)).toBe(401);
      const fresh = await logIn(gateway, 'bob', 'bob-password');
      expect(await selfStatus(fresh)).toBe(200);
    });

    it('a password change ends the sessions opened with the old password', async () => {
      await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'grace', password: 'grace-password', role: 'admin' } });
      const session = await logIn(gateway, 'grace', 'grace-password');
      expect((await callGateway(gateway, 'GET', '/api/admin/users', { headers: { cookie: session } })).status).toBe(200);
      expect((await callAdmin(gateway, 'PUT', `/api/admin/users/${await idOf('grace')}`, { body: { password: 'grace-new-password' } })).status).toBe(200);
      const after = await callGateway(gateway, 'GET', '/api/admin/users', { headers: { cookie: session } });
      expect(after.status).toBe(401);
      expect(after.body).toEqual({ success: false, message: expect.stringContaining('log in again') });
      expect(await selfStatus(await logIn(gateway, 'grace', 'grace-new-password'))).toBe(200);
    });

    it('a demoted admin loses the admin API at once: its session ends', async () => {
      await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'temp-admin', password: 'temp-admin-password', role: 'admin' } });
      const session = await logIn(gateway, 'temp-admin', 'temp-admin-password');
      expect((await callGateway(gateway, 'GET', '/api/admin/users', { headers: { cookie: session } })).status).toBe(200);
      await callAdmin(gateway, 'PUT', `/api/admin/users/${await idOf('temp-admin')}`, { body: { role: 'user' } });
      expect((await callGateway(gateway, 'GET', '/api/admin/users', { headers: { cookie: session } })).status).toBe(401);
      // Logged in again, it is an ordinary user.
      const again = await logIn(gateway, 'temp-admin', 'temp-admin-password');
      expect((await callGateway(gateway, 'GET', '/api/admin/users', { headers: { cookie: again } })).status).toBe(403);
    });

    it('a disabled user enabled again does not get its old sessions back', async () => {
      await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'henrietta', password: 'henrietta-password' } });
      const id = await idOf('henrietta');
      const session = await logIn(gateway, 'henrietta', 'henrietta-password');
      await callAdmin(gateway, 'PUT', `/api/admin/users/${id}`, { body: { enabled: false } });
      await callAdmin(gateway, 'PUT', `/api/admin/users/${id}`, { body: { enabled: true } });
      expect(await selfStatus(session)).toBe(401);
    });

    it('accepts a cookie of the format before session versions (`<id>.<expiry>`) until the user\'s first logout', async () => {
      await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'legacy', password: 'legacy-password' } });
      const signer = signerFactory(gateway.gateway.services.sessionSecret);
      const legacy = `relay_session=${encodeURIComponent(signer.sign(`${await idOf('legacy')}.${Math.floor(clock / 1000) + 60}`))}`;
      expect(await selfStatus(legacy)).toBe(200);
      await callGateway(gateway, 'POST', '/api/user/logout', { headers: { cookie: legacy } });
      expect(await selfStatus(legacy)).toBe(401);
    });

    it('keeps the sessions through changes that do not concern them (group, same role)', async () => {
      const session = await logIn(gateway, 'ada', 'ada-password');
      await callAdmin(gateway, 'PUT', `/api/admin/users/${await idOf('ada')}`, { body: { role: 'admin', enabled: true } });
      expect(await selfStatus(session)).toBe(200);
    });
  });

  describe('login throttling', () => {
    it('answers 429 in the /api envelope after 20 failed logins of one name from one IP, even with the right password', async () => {
      await callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'ivan', password: 'ivan-password' } });
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 20; attempt += 1) {
        statuses.push((await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'ivan', password: `wrong-${attempt}` } })).status);
      }
      expect(new Set(statuses)).toEqual(new Set([401]));
      const refused = await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'ivan', password: 'ivan-password' } });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ success: false, message: expect.stringContaining('Too many failed logins') });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another name from the same IP is not affected.
      expect((await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'bob', password: 'bob-password' } })).status).toBe(200);
    });

    it('lets the name log in again once the 20 minutes have passed', async () => {
      const start = clock;
      try {
        clock = start + 20 * 60 * 1000 + 1000;
        expect((await callGateway(gateway, 'POST', '/api/user/login', { body: { username: 'ivan', password: 'ivan-password' } })).status).toBe(200);
      } finally {
        clock = start;
      }
    });
  });
});
