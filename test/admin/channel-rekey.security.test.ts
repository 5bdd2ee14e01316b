/**
 * From the isolation audit: channel keys are write-only in the admin API, yet a `PUT` that moved a channel's
 * `base_url` to a host of the caller's choosing kept the stored keys, and the next relayed request (or the
 * channel test) sent them there as `Authorization`: an admin session, or anyone with the admin key, could
 * read every key. An update that moves the base URL to another origin (scheme, host, port) now has to carry
 * the key(s) again. So does another path or query on the same origin (session 30): a shared host may tell its
 * tenants apart by path, and the keys would reach another tenant's endpoint.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, callGateway, logIn, type ApiAnswer, type RequestOptions } from './admin-client.js';

const storedKey = 'sk-stored-upstream-secret-0123456789abcdef';
const newKey = 'sk-new-upstream-secret-0123456789abcdefgh';

describe('admin API security: a channel moved to another origin or path takes its key again', () => {
  let gateway: TestGateway;
  let upstream: FakeOpenaiUpstream;
  let elsewhere: FakeOpenaiUpstream;
  let adminSession: string;
  let rootTokenKey: string;
  let channelCount = 0;

  /** The two callers an audit names: an admin (not root) console session, and the admin key. */
  const callers: [string, (method: string, path: string, options?: RequestOptions) => Promise<ApiAnswer>][] = [
    // A session's writes must be JSON, bodiless ones (the channel test) included.
    ['an admin session', (method, path, options = {}) => callGateway(gateway, method, path, { ...options, headers: { cookie: adminSession, 'content-type': 'application/json', ...options.headers } })],
    ['the admin key', (method, path, options = {}) => callAdmin(gateway, method, path, options)],
  ];

  const createChannel = async () => {
    channelCount += 1;
    const name = `rekey-${channelCount}`;
    const created = await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { name, type: 'openai', base_url: upstream.url, key: storedKey, models: ['gpt-4o-mini'] } });
    expect(created.status, created.text).toBe(200);
    return { id: created.body.data.id as number, name };
  };
  /** A relayed request pinned to the channel (root may pin), so no other channel can serve it. */
  const relayThrough = async (id: number) => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rootTokenKey}-${id}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }),
    });
    await response.text();
    await gateway.settled();
  };
  const authorizationsAt = (fake: FakeOpenaiUpstream) => fake.requests.map((request) => request.headers.authorization);

  beforeAll(async () => {
    upstream = await startFakeOpenaiUpstream();
    elsewhere = await startFakeOpenaiUpstream();
    gateway = await startTestGateway({
      config: {
        prices: { 'gpt-4o-mini': { input: 1, output: 2 } },
        users: [{ username: 'moderator', password: 'moderator-password', role: 'admin', group: 'default', enabled: true }],
      },
    });
    adminSession = await logIn(gateway, 'moderator', 'moderator-password');
    rootTokenKey = (await callAdmin(gateway, 'POST', '/api/admin/tokens', { body: { name: 'root-key' } })).body.data.key;
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    elsewhere.requests.length = 0;
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
    await elsewhere?.close();
  });

  for (const [caller, call] of callers) {
    describe(`as ${caller}`, () => {
      it('refuses a base_url on another host without the key (400 naming key), and the stored keys never go there', async () => {
        const { id, name } = await createChannel();
        for (const body of [{ base_url: elsewhere.url }, { base_url: `${elsewhere.url}/v1`, priority: 3 }, { name: `moved-${id}`, base_url: elsewhere.url, models: ['gpt-4o-mini'] }]) {
          const answer = await call('PUT', `/api/admin/channels/${id}`, { body });
          expect(answer.status, answer.text).toBe(400);
          expect(answer.body).toEqual({ success: false, message: expect.stringMatching(/^key: .*another origin or path/) });
        }
        // Nothing of the refused update was applied.
        expect(await gateway.gateway.services.repositories.channels.get(id)).toMatchObject({ name, baseUrl: upstream.url, keys: [storedKey], priority: 0 });

        const tested = await call('POST', `/api/admin/channels/${id}/test`);
        expect(tested.status, tested.text).toBe(200);
        await relayThrough(id);
        expect(elsewhere.requests).toEqual([]);
        expect(authorizationsAt(upstream)).toEqual([`Bearer ${storedKey}`, `Bearer ${storedKey}`]);
      });

      it('refuses another scheme or port of the same host without the key', async () => {
        const { id } = await createChannel();
        const port = new URL(upstream.url).port;
        for (const baseUrl of [upstream.url.replace(/^http:/, 'https:'), `http://127.0.0.1:${Number(port) === 65535 ? 65534 : Number(port) + 1}`, `http://localhost:${port}`]) {
          const answer = await call('PUT', `/api/admin/channels/${id}`, { body: { base_url: baseUrl } });
          expect(answer.status, `${baseUrl}: ${answer.text}`).toBe(400);
          expect(answer.body.message).toMatch(/^key: /);
        }
        expect((await gateway.gateway.services.repositories.channels.get(id))?.baseUrl).toBe(upstream.url);
      });

      it('takes a move to another origin that carries the key (`key` or `keys`), and only the new key goes there', async () => {
        const { id } = await createChannel();
        const moved = await call('PUT', `/api/admin/channels/${id}`, { body: { base_url: elsewhere.url, key: newKey } });
        expect(moved.status, moved.text).toBe(200);
        expect(moved.body.data).toMatchObject({ base_url: elsewhere.url, key_count: 1 });
        expect(moved.text).not.toContain(newKey);

        expect((await call('POST', `/api/admin/channels/${id}/test`)).status).toBe(200);
        await relayThrough(id);
        expect(upstream.requests).toEqual([]);
        expect(authorizationsAt(elsewhere)).toEqual([`Bearer ${newKey}`, `Bearer ${newKey}`]);

        const back = await call('PUT', `/api/admin/channels/${id}`, { body: { base_url: upstream.url, keys: [storedKey, newKey] } });
        expect(back.status, back.text).toBe(200);
        expect(await gateway.gateway.services.repositories.channels.get(id)).toMatchObject({ baseUrl: upstream.url, keys: [storedKey, newKey] });
      });

      it('refuses another path or query on the same origin without the key, and the stored keys never go there', async () => {
        const { id } = await createChannel();
        for (const baseUrl of [`${upstream.url}/tenant-b/v1`, `${upstream.url}/v1`, `${upstream.url}?account=b`]) {
          const answer = await call('PUT', `/api/admin/channels/${id}`, { body: { base_url: baseUrl } });
          expect(answer.status, `${baseUrl}: ${answer.text}`).toBe(400);
          expect(answer.body.message).toMatch(/^key: .*another origin or path/);
        }
        expect(await gateway.gateway.services.repositories.channels.get(id)).toMatchObject({ baseUrl: upstream.url, keys: [storedKey] });
        await relayThrough(id);
        expect(upstream.requests.map((request) => request.path)).toEqual(['/v1/chat/completions']);

        const moved = await call('PUT', `/api/admin/channels/${id}`, { body: { base_url: `${upstream.url}/tenant-b`, key: newKey } });
        expect(moved.status, moved.text).toBe(200);
        expect(await gateway.gateway.services.repositories.channels.get(id)).toMatchObject({ baseUrl: `${upstream.url}/tenant-b`, keys: [newKey] });
      });

      it('takes a change of case, default port or trailing slash without the key', async () => {
        const { id } = await createChannel();
        for (const baseUrl of [upstream.url.replace(/^http:/, 'HTTP:'), `${upstream.url}/`]) {
          const answer = await call('PUT', `/api/admin/channels/${id}`, { body: { base_url: baseUrl } });
          expect(answer.status, `${baseUrl}: ${answer.text}`).toBe(200);
        }
        expect(await gateway.gateway.services.repositories.channels.get(id)).toMatchObject({ keys: [storedKey] });
        // A change of type keeps the place the keys go to: it needs no key either.
        expect((await call('PUT', `/api/admin/channels/${id}`, { body: { type: 'anthropic' } })).status).toBe(200);
        expect((await call('PUT', `/api/admin/channels/${id}`, { body: { type: 'openai', priority: 1 } })).status).toBe(200);
        expect(await gateway.gateway.services.repositories.channels.get(id)).toMatchObject({ type: 'openai', keys: [storedKey], priority: 1 });
      });
    });
  }
});
