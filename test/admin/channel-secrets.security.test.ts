/**
 * From the estimates review (secrets): what the admin API shows of a channel's secrets. A key of 16–20
 * characters was shown 8 of them (half the key): now at most a quarter of any key, 4 + 4 only from 32
 * characters on, nothing under 12. A `base_url` with userinfo (a proxy's `https://user:password@host`) was
 * answered in clear: now its user and password are masked in every answer, and a console that sends the
 * masked URL back does not overwrite the stored one. (Such a URL is now refused on create and update —
 * channel-base-url.error.test.ts — so these channels are rows stored before that, written to the database.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, type ApiAnswer } from './admin-client.js';

const proxyUser = 'relay-proxy-user';
const proxyPassword = 'proxy-password-0123';
const baseUrl = `https://${proxyUser}:${proxyPassword}@proxy.example.com/v1`;
const maskedBaseUrl = 'https://***:***@proxy.example.com/v1';
const shortKeys = ['sk-0123456789ABCD', 'sk-0123456789ABCDEFG'];

/** A channel as a row stored before base URLs with credentials were refused (the admin API takes none now). */
async function storeChannel(gateway: TestGateway, name: string, keys: string[]): Promise<number> {
  const services = gateway.gateway.services;
  const fields = { name, type: 'openai', baseUrl, keys, models: ['gpt-4o'], groups: ['default'], priority: 0, weight: 1, modelMapping: {}, settings: {}, status: 'enabled' as const, autoDisable: true };
  const id = await services.repositories.channels.create(fields, services.now());
  await services.catalog.changed();
  return id;
}

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
    const id = await storeChannel(gateway, 'behind-proxy', shortKeys);
    const shown = await callAdmin(gateway, 'GET', `/api/admin/channels/${id}`);
    answers.push(shown);
    answers.push(await callAdmin(gateway, 'GET', '/api/admin/channels'));
    answers.push(await callAdmin(gateway, 'PUT', `/api/admin/channels/${id}`, { body: { priority: 2 } }));
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      for (const secret of [proxyUser, proxyPassword, ...shortKeys, 'sk-0…ABCD', 'sk-0…DEFG']) expect(answer.text).not.toContain(secret);
    }
    expect(shown.body.data).toMatchObject({ base_url: maskedBaseUrl, keys: ['sk…CD', 'sk-…FG'] });
    // The gateway itself still has them.
    expect((await gateway.gateway.services.repositories.channels.get(id))?.baseUrl).toBe(baseUrl);
  });

  it('keeps the stored base_url when the masked one it answered is sent back, and takes a new one', async () => {
    const id = await storeChannel(gateway, 'round-trip', ['sk-upstream-round-trip-secret-0123456789']);
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
