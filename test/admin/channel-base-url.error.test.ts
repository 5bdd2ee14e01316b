/**
 * From the misc review: a channel `base_url` with userinfo (`https://user:password@host`) was accepted, but
 * upstream calls go to its origin and path only, so the user and password were never sent and the
 * operator's credentials silently did nothing. The admin API now refuses such a URL on create and update
 * (400 naming `base_url`, pointing at the channel key or a proxy), without echoing the password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, type ApiAnswer } from './admin-client.js';

const channel = { name: 'upstream', type: 'openai', base_url: 'https://api.example.com/v1', key: 'sk-base-url-suite-upstream-key', models: ['gpt-4o'] };

function expectBaseUrlRefused(answer: ApiAnswer): void {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.body.success).toBe(false);
  expect(answer.body.message).toContain('base_url: must not carry a user or password');
  expect(answer.body.message).toContain("channel's `key`");
  expect(answer.text).not.toContain('proxy-secret');
}

describe('admin API: a channel base_url with credentials', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({});
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('refuses a create whose base_url names a user and password, or a user alone', async () => {
    expectBaseUrlRefused(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...channel, base_url: 'https://proxy-user:proxy-secret@proxy.example.com/v1' } }));
    expectBaseUrlRefused(await callAdmin(gateway, 'POST', '/api/admin/channels', { body: { ...channel, base_url: 'https://proxy-secret@proxy.example.com/v1' } }));
    const listed = await callAdmin(gateway, 'GET', '/api/admin/channels');
    expect(listed.body.data.items).toEqual([]);
  });

  it('refuses an update to such a base_url and keeps the stored one', async () => {
    const created = await callAdmin(gateway, 'POST', '/api/admin/channels', { body: channel });
    expect(created.status, created.text).toBe(200);
    const id = created.body.data.id as number;
    expectBaseUrlRefused(await callAdmin(gateway, 'PUT', `/api/admin/channels/${id}`, { body: { base_url: 'https://proxy-user:proxy-secret@proxy.example.com/v1', priority: 3 } }));
    const stored = await gateway.gateway.services.repositories.channels.get(id);
    expect(stored).toMatchObject({ baseUrl: 'https://api.example.com/v1', priority: 0 });
  });
});
