import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, startRelayFixture, type RelayFixture } from './relay-test-setup.js';

describe('POST /pg/chat/completions (console login session)', () => {
  let fixture: RelayFixture;

  beforeAll(async () => {
    fixture = await startRelayFixture({
      config: {
        users: [{ username: 'alice', password: 'correct horse', role: 'user', group: 'default', quota: 1_000_000, enabled: true }],
        tokens: [{ name: 'alice-key', user: 'alice', key: clientKey, quota: 10_000_000, expires_at: 0, enabled: true }],
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
});
