import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, startRelayFixture, type RelayFixture } from './relay-test-setup.js';

describe('POST /pg/chat/completions (console login session)', () => {
  let fixture: RelayFixture;

  beforeAll(async () => {
    fixture = await startRelayFixture({
      config: {
        users: [
          { username: 'alice', password: 'correct horse', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
          { username: 'bruno', password: 'bruno-password', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
          { username: 'carla', password: 'carla-password', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
        ],
        tokens: [
          { name: 'alice-key', user: 'alice', key: clientKey, quota: 10_000_000, expires_at: 0, enabled: true },
          // An API key that merely has the playground's name: the playground must never bill through it.
          { name: 'playground', user: 'bruno', quota: 5, model_limits: ['nothing-served'], expires_at: 0, enabled: true },
        ],
      },
    });
  });
  afterAll(async () => {
    await fixture.close();
  });

  const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

  it('refuses a request without a session, in the OpenAI envelope, calling nothing', async () => {
    const response = await fetch(`${fixture.gateway.url}/pg/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chat });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('log in');
    expect(fixture.upstreamA.requests).toHaveLength(0);
  });

  it('relays for a logged-in user and bills the user wallet', async () => {
    const login = await fetch(`${fixture.gateway.url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'correct horse' }) });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';', 1)[0]!;
    const { db } = fixture.gateway.gateway.services.database;
    const wallet = async () => {
      await fixture.gateway.settled();
      return db.selectFrom('users').select(['quota', 'used_quota']).where('username', '=', 'alice').executeTakeFirstOrThrow();
    };
    const before = await wallet();
    const response = await fetch(`${fixture.gateway.url}/pg/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: chat });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('Hello from the fake upstream!');
    const after = await wallet();
    expect(after.used_quota - before.used_quota).toBe(4);
    expect(before.quota - after.quota).toBe(4);
    const [row] = await fixture.logs();
    expect(row).toMatchObject({ token_name: 'playground', quota: 4, path: '/pg/chat/completions' });
  });

  const logIn = async (username: string, password: string) => {
    const login = await fetch(`${fixture.gateway.url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
    expect(login.status).toBe(200);
    return login.headers.get('set-cookie')!.split(';', 1)[0]!;
  };
  const playground = (cookie: string, contentType = 'application/json') =>
    fetch(`${fixture.gateway.url}/pg/chat/completions`, { method: 'POST', headers: { 'content-type': contentType, cookie }, body: chat });
  const tokensOf = async (username: string) => {
    const { db } = fixture.gateway.gateway.services.database;
    const user = await db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
    return db.selectFrom('tokens').select(['id', 'name', 'purpose', 'used_quota']).where('user_id', '=', user.id).orderBy('id').execute();
  };

  it('refuses with 403 once an administrator disables the user\'s playground token, and serves again once it is enabled', async () => {
    const cookie = await logIn('alice', 'correct horse');
    expect((await playground(cookie)).status).toBe(200);
    const token = (await tokensOf('alice')).find((candidate) => candidate.purpose === 'playground')!;
    const admin = { authorization: `Bearer ${fixture.gateway.adminKey}`, 'content-type': 'application/json' };
    await fetch(`${fixture.gateway.url}/api/admin/tokens/${token.id}`, { method: 'PUT', headers: admin, body: JSON.stringify({ enabled: false }) });
    const requestsBefore = fixture.upstreamA.requests.length + fixture.upstreamB.requests.length;
    const refused = await playground(cookie);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('playground');
    expect(fixture.upstreamA.requests.length + fixture.upstreamB.requests.length).toBe(requestsBefore);
    // Not replaced by a new token behind the administrator's back.
    expect((await tokensOf('alice')).filter((candidate) => candidate.purpose === 'playground')).toHaveLength(1);
    await fetch(`${fixture.gateway.url}/api/admin/tokens/${token.id}`, { method: 'PUT', headers: admin, body: JSON.stringify({ enabled: true }) });
    expect((await playground(cookie)).status).toBe(200);
  });

  it('never bills through an API key that merely has the playground\'s name: it makes its own', async () => {
    const cookie = await logIn('bruno', 'bruno-password');
    const response = await playground(cookie);
    expect(response.status, await response.text()).toBe(200);
    await fixture.gateway.settled();
    const tokens = await tokensOf('bruno');
    expect(tokens.map(({ name, purpose }) => ({ name, purpose }))).toEqual([
      { name: 'playground', purpose: 'api' },
      { name: 'playground-2', purpose: 'playground' },
    ]);
    expect(tokens[0]?.used_quota).toBe(0);
    expect(tokens[1]?.used_quota).toBeGreaterThan(0);
  });

  it('refuses with 415 a request that is not sent as JSON (a cross-site form post), calling nothing', async () => {
    const cookie = await logIn('carla', 'carla-password');
    const requestsBefore = fixture.upstreamA.requests.length + fixture.upstreamB.requests.length;
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const response = await playground(cookie, contentType);
      expect(response.status, contentType).toBe(415);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain('application/json');
    }
    expect(fixture.upstreamA.requests.length + fixture.upstreamB.requests.length).toBe(requestsBefore);
  });
});
