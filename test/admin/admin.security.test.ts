import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/security/api-keys.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, callGateway, logIn, type ApiAnswer } from './admin-client.js';

const upstreamKeys = ['sk-upstream-security-secret-AAAAAAAAAAAA', 'sk-upstream-security-secret-BBBBBBBBBBBB'];
const userPassword = 'ordinary-password';

interface AdminOperation {
  method: string;
  path: string;
}

describe('admin API security', () => {
  let gateway: TestGateway;
  let operations: AdminOperation[];
  let apiKey: string;
  let userSession: string;
  let adminSession: string;

  beforeAll(async () => {
    gateway = await startTestGateway({
      config: {
        users: [
          { username: 'ordinary', password: userPassword, role: 'user', group: 'default', enabled: true },
          { username: 'moderator', password: 'moderator-password', role: 'admin', group: 'default', enabled: true },
        ],
      },
    });
    const channel = await callAdmin(gateway, 'POST', '/api/admin/channels', {
      body: { name: 'secret-channel', type: 'openai', base_url: 'https://api.example.com', keys: upstreamKeys, models: ['gpt-4o'] },
    });
    const token = await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'ordinary-key', user: 'ordinary' } });
    apiKey = token.body.data.key;
    userSession = await logIn(gateway, 'ordinary', userPassword);
    adminSession = await logIn(gateway, 'moderator', 'moderator-password');

    // Every documented admin operation, with real ids filled in, so a new route is covered without editing this list.
    const document = await callGateway(gateway, 'GET', '/api/admin/openapi.json');
    const ids: Record<string, number> = { channels: channel.body.data.id, tokens: token.body.data.id, users: 1 };
    const fill = (path: string) =>
      path
        .replace(/\/(\w+)\/\{id\}/, (_match, resource: string) => `/${resource}/${ids[resource]}`)
        .replace('{model}', 'gpt-4o')
        .replace('{name}', 'default');
    operations = Object.entries(document.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path: fill(path) })),
    );
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('covers every admin operation', () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
  });

  it('answers 401 in the API envelope with no credentials', async () => {
    for (const { method, path } of operations) {
      const answer = await callGateway(gateway, method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.body, `${method} ${path}`).toEqual({ success: false, message: expect.any(String) });
    }
  });

  it('answers 401 to a wrong admin key', async () => {
    for (const { method, path } of operations) {
      const answer = await callGateway(gateway, method, path, { headers: { authorization: 'Bearer sk-not-the-admin-key' } });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.body.success).toBe(false);
    }
  });

  it('answers 401 to an ordinary API token used as the admin key', async () => {
    for (const { method, path } of operations) {
      const answer = await callGateway(gateway, method, path, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(answer.status, `${method} ${path}`).toBe(401);
    }
  });

  it('answers 403 to the login session of an ordinary user', async () => {
    for (const { method, path } of operations) {
      const answer = await callGateway(gateway, method, path, { headers: { cookie: userSession } });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.success).toBe(false);
    }
  });

  it('judges a request with a wrong admin key by the key, even beside a valid admin session', async () => {
    const answer = await callGateway(gateway, 'GET', '/api/admin/channels', { headers: { authorization: 'Bearer wrong', cookie: adminSession } });
    expect(answer.status).toBe(401);
  });

  it('lets an admin session manage ordinary users only', async () => {
    const asAdmin = { headers: { cookie: adminSession } };
    const ordinary = await callGateway(gateway, 'POST', '/api/admin/users', { ...asAdmin, body: { username: 'made-by-admin' } });
    expect(ordinary.status).toBe(200);
    const root = await callGateway(gateway, 'POST', '/api/admin/users', { ...asAdmin, body: { username: 'new-root', role: 'root' } });
    expect(root.status).toBe(403);
    expect(root.body.success).toBe(false);
    const promoted = await callGateway(gateway, 'PUT', `/api/admin/users/${ordinary.body.data.id}`, { ...asAdmin, body: { role: 'admin' } });
    expect(promoted.status).toBe(403);
    const rootUser = (await callAdmin(gateway, 'GET', '/api/admin/users')).body.data.items.find((user: { role: string }) => user.role === 'root');
    const takeover = await callGateway(gateway, 'PUT', `/api/admin/users/${rootUser.id}`, { ...asAdmin, body: { password: 'attacker-password' } });
    expect(takeover.status).toBe(403);
    expect((await callAdmin(gateway, 'GET', `/api/admin/users/${ordinary.body.data.id}`)).body.data.role).toBe('user');
  });

  it('lets only root change prices and group ratios: an admin session reads them, and is refused every write', async () => {
    const asAdmin = { headers: { cookie: adminSession } };
    expect((await callGateway(gateway, 'GET', '/api/admin/prices', asAdmin)).status).toBe(200);
    expect((await callGateway(gateway, 'GET', '/api/admin/groups', asAdmin)).status).toBe(200);
    // A session's writes must be JSON (else 415 before any role check), so the DELETEs send {}.
    const writes: [string, string, unknown][] = [
      ['POST', '/api/admin/prices', { model: 'admin-priced', input: 0 }],
      ['PUT', '/api/admin/prices/root-priced', { input: 0 }],
      ['DELETE', '/api/admin/prices/root-priced', {}],
      ['POST', '/api/admin/groups', { name: 'admin-group', ratio: 0 }],
      ['PUT', '/api/admin/groups/root-group', { ratio: 0 }],
      ['DELETE', '/api/admin/groups/root-group', {}],
    ];
    expect((await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'root-priced', input: 5 } })).status).toBe(200);
    expect((await callAdmin(gateway, 'POST', '/api/admin/groups', { body: { name: 'root-group', ratio: 2 } })).status).toBe(200);
    for (const [method, path, body] of writes) {
      const answer = await callGateway(gateway, method, path, { ...asAdmin, ...(body === undefined ? {} : { body }) });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.message).toContain('Only root');
    }
    expect((await callAdmin(gateway, 'GET', '/api/admin/prices/root-priced')).body.data.input).toBe(5);
    expect((await callAdmin(gateway, 'GET', '/api/admin/groups/root-group')).body.data.ratio).toBe(2);
    expect((await callAdmin(gateway, 'GET', '/api/admin/prices/admin-priced')).status).toBe(404);

    // A root console session may (the admin key above may too).
    const rootUser = (await callAdmin(gateway, 'GET', '/api/admin/users')).body.data.items.find((user: { role: string }) => user.role === 'root');
    expect((await callAdmin(gateway, 'PUT', `/api/admin/users/${rootUser.id}`, { body: { password: 'root-console-password' } })).status).toBe(200);
    const rootSession = await logIn(gateway, rootUser.username, 'root-console-password');
    const changed = await callGateway(gateway, 'PUT', '/api/admin/prices/root-priced', { headers: { cookie: rootSession }, body: { input: 7 } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.input).toBe(7);
  });

  it('never answers an upstream key, a token key or its hash, or a password hash', async () => {
    const answers: ApiAnswer[] = [];
    const record = async (answer: Promise<ApiAnswer>) => {
      answers.push(await answer);
    };
    const channels = await callAdmin(gateway, 'GET', '/api/admin/channels');
    answers.push(channels);
    const channelId = channels.body.data.items[0].id;
    await record(callAdmin(gateway, 'GET', `/api/admin/channels/${channelId}`));
    await record(callAdmin(gateway, 'PUT', `/api/admin/channels/${channelId}`, { body: { priority: 3, key: upstreamKeys[0] } }));
    await record(
      callAdmin(gateway, 'POST', '/api/admin/channels', { body: { name: 'another', type: 'anthropic', base_url: 'https://a.example.com', key: upstreamKeys[1], models: ['claude'] } }),
    );
    await record(callAdmin(gateway, 'GET', '/api/admin/tokens'));
    const tokenId = answers.at(-1)?.body.data.items[0].id;
    await record(callAdmin(gateway, 'GET', `/api/admin/tokens/${tokenId}`));
    await record(callAdmin(gateway, 'PUT', `/api/admin/tokens/${tokenId}`, { body: { enabled: true } }));
    await record(callAdmin(gateway, 'POST', `/api/admin/tokens/${tokenId}/quota`, { body: { delta: 5 } }));
    await record(callAdmin(gateway, 'GET', '/api/admin/users'));
    await record(callAdmin(gateway, 'GET', '/api/admin/users/2'));
    await record(callAdmin(gateway, 'PUT', '/api/admin/users/2', { body: { password: 'a-new-password' } }));
    await record(callAdmin(gateway, 'POST', '/api/admin/users', { body: { username: 'secretive', password: 'secretive-password' } }));

    const passwordHash = (await gateway.gateway.services.repositories.users.passwordHashOf('ordinary'))?.passwordHash ?? '';
    expect(passwordHash).toMatch(/^scrypt:/);
    const forbidden = [...upstreamKeys, apiKey, hashApiKey(apiKey), passwordHash, 'scrypt:', 'a-new-password', 'secretive-password', 'password_hash', 'key_hash'];
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      for (const secret of forbidden) expect(answer.text).not.toContain(secret);
    }
    // The masked form is what operators see instead.
    expect(channels.body.data.items[0].keys).toEqual(['sk-u…AAAA', 'sk-u…BBBB']);
  });
});
