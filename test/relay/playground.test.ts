import OpenAI from 'openai';
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

  // The Chat route's passthrough cleaning (55bedc0): another vendor's value in Google's thought-signature
  // field is refused by Google's OpenAI-compatible endpoint. The playground sent the client's bytes as they were.
  it.each([false, true])("does not relay another vendor's tagged thought signature to the Chat channel, as the Chat route does not (stream=%s)", async (stream) => {
    const cookie = await logIn('alice', 'correct horse');
    // The console's requests carry the session cookie; the SDK's key is not read on this route.
    const consoleClient = new OpenAI({ apiKey: 'unused', baseURL: `${fixture.gateway.url}/pg`, defaultHeaders: { cookie }, maxRetries: 0 });
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
    const messages = [
      { role: 'user' as const, content: 'Weather in Paris?' },
      { role: 'assistant' as const, content: null, tool_calls: [{ ...call, extra_content: { google: { thought_signature: 'signature:anthropic:EqQBClaudeSig1' } } } as never] },
      { role: 'tool' as const, tool_call_id: 'call_1', content: 'sunny' },
    ];
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const text = stream
      ? (await consoleClient.chat.completions.stream({ model: 'gpt-4o-mini', messages, tools }).finalChatCompletion()).choices[0]!.message.content
      : (await consoleClient.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })).choices[0]!.message.content;
    expect(text).toBe('Hello from the fake upstream!');
    const sent = fixture.upstreamA.requests.at(-1)!.body;
    expect(JSON.stringify(sent)).not.toContain('ClaudeSig1');
    // The call keeps Google's stand-in, as on the Chat route.
    expect(sent.messages[1].tool_calls[0]).toEqual({ ...call, extra_content: { google: { thought_signature: 'skip_thought_signature_validator' } } });
    await fixture.gateway.settled();
    const [row] = await fixture.logs();
    expect(row).toMatchObject({ path: '/pg/chat/completions', token_name: 'playground' });
    expect(JSON.stringify(row?.warnings)).toContain('issued by anthropic cannot be verified by Google: dropped');
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
