/**
 * From the estimates review (secrets): what the admin API shows of a channel's secrets. A key of 16–20
 * characters was shown 8 of them (half the key): now at most a quarter of any key, 4 + 4 only from 32
 * characters on, nothing under 12. A `base_url` with userinfo (a proxy's `https://user:password@host`) was
 * answered in clear: now its user and password are masked in every answer, and a console that sends the
 * masked URL back does not overwrite the stored one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, type ApiAnswer } from './admin-client.js';

const proxyUser = 'relay-proxy-user';
const proxyPassword = 'proxy-password-0123';
const baseUrl = `https://${proxyUser}:${proxyPassword}@proxy.example.com/v1`;
const maskedBaseUrl = 'https://***:***@proxy.example.com/v1';
const shortKeys = ['sk-0123456789ABCD', 'sk-0123456789ABCDEFG'];

describe('admin API: channel secrets', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({});
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('never answers the user or password of a base_url, and shows at most a quarter of a short key', async () => {
    const answers: ApiAnswer[] = [];
    const created = await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { name: 'behind-proxy', type: 'openai', base_url: baseUrl, keys: shortKeys, models: ['gpt-4o'] } });
    answers.push(created);
    const id = created.body.data.id as number;
    answers.push(await callAdmin(gateway, 'GET', '/api/admin/channels'));
    answers.push(await callAdmin(gateway, 'GET', `/api/admin/channels/${id}`));
    answers.push(await callAdmin(gateway, 'PUT', `/api/admin/channels/${id}`, { body: { priority: 2 } }));
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      for (const secret of [proxyUser, proxyPassword, ...shortKeys, 'sk-0…ABCD', 'sk-0…DEFG']) expect(answer.text).not.toContain(secret);
    }
    expect(created.body.data).toMatchObject({ base_url: maskedBaseUrl, keys: ['sk…CD', 'sk-…FG'] });
    // The gateway itself still has them.
    expect((await gateway.gateway.services.repositories.channels.get(id))?.baseUrl).toBe(baseUrl);
  });

  it('keeps the stored base_url when the masked one it answered is sent back, and takes a new one', async () => {
    const created = await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { name: 'round-trip', type: 'openai', base_url: baseUrl, key: 'sk-upstream-round-trip-secret-0123456789', models: ['gpt-4o'] } });
    const id = created.body.data.id as number;
    const shown = await callAdmin(gateway, 'GET', `/api/admin/channels/${id}`);
    const echoed = await callAdmin(gateway, 'PUT', `/api/admin/channels/${id}`, { body: { ...pick(shown.body.data, ['name', 'type', 'base_url', 'models']), priority: 5 } });
    expect(echoed.body.data).toMatchObject({ base_url: maskedBaseUrl, priority: 5 });
    expect((await gateway.gateway.services.repositories.channels.get(id))?.baseUrl).toBe(baseUrl);

    // Another host takes the key again (channel-rekey.security.test.ts).
    const moved = await callAdmin(gateway, 'PUT', `/api/admin/channels/${id}`, { body: { base_url: 'https://api.example.com/v1', key: 'sk-upstream-round-trip-secret-9876543210' } });
    expect(moved.body.data.base_url).toBe('https://api.example.com/v1');
    expect((await gateway.gateway.services.repositories.channels.get(id))?.baseUrl).toBe('https://api.example.com/v1');
  });
});

function pick(record: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, record[key]]));
}
