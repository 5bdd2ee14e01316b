/**
 * From the auth audit: a realtime session asks again whether its caller may be served — before each
 * `response.create`, at most once a second otherwise, and before each next hold — so a key the operator
 * disables mid-session (a leaked key revoked) buys nothing more: the client gets an error event naming
 * the refusal and the session is closed with 1008.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const key = `sk-${'r'.repeat(48)}`;
const price = { input: 4, output: 16 };
let upstream: FakeRealtimeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeRealtimeUpstream({ expectedKeys: ['sk-up-realtime'] });
  gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      prices: { 'gpt-realtime': price },
      channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: 'sk-up-realtime', priority: 0, model_mapping: {} }],
      users: [{ username: 'leaky', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'leaked', user: 'leaky', key, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function used(): Promise<number> {
  await gateway.settled();
  const row = await gateway.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'leaked').executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

describe('realtime session after its key is disabled', () => {
  it('relays no further paid responses once the token is disabled by the admin', async () => {
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${key}` } });
    const events: string[] = [];
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    socket.on('message', (data) => events.push((JSON.parse(data.toString()) as { type: string }).type));
    await new Promise<void>((resolve, reject) => {
      socket.once('message', () => resolve());
      socket.once('error', reject);
    });
    // One paid response while the key is good.
    socket.send(JSON.stringify({ type: 'response.create' }));
    await expect.poll(() => events.filter((type) => type === 'response.done').length).toBe(1);
    await expect.poll(() => used()).toBeGreaterThan(0);
    const before = await used();

    // The operator revokes the key.
    const list = (await (await fetch(`${gateway.url}/api/admin/tokens`, { headers: { authorization: `Bearer ${gateway.adminKey}` } })).json()) as { data: { items?: { id: number; name: string }[] } | { id: number; name: string }[] };
    const items = Array.isArray(list.data) ? list.data : (list.data.items ?? []);
    const id = items.find((token) => token.name === 'leaked')?.id;
    const put = await fetch(`${gateway.url}/api/admin/tokens/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ enabled: false }) });
    expect(put.status).toBe(200);
    // A new request with it is refused...
    expect((await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"model":"gpt-realtime","messages":[]}' })).status).toBe(401);

    // ...but the open session keeps buying responses on it.
    if (socket.readyState === WebSocket.OPEN) {
      for (let index = 0; index < 3; index += 1) socket.send(JSON.stringify({ type: 'response.create' }));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const after = await used();
    socket.close();
    const code = await closed;
    expect(after - before, 'quota spent through a disabled key').toBe(0);
    expect(code).toBe(1008);
    expect(events).toContain('error');
  });
});
