/**
 * From the limits audit: behind a trusted proxy (TRUST_PROXY) a realtime upgrade is limited per client
 * address read from X-Forwarded-For, as HTTP requests are, not by the proxy's socket address (which every
 * client of the proxy would share).
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const keyA = `sk-${'a'.repeat(48)}`;
const keyB = `sk-${'b'.repeat(48)}`;
let upstream: FakeRealtimeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeRealtimeUpstream({ expectedKeys: ['sk-up-realtime'] });
  gateway = await startTestGateway({
    dialect: 'sqlite',
    env: { TRUST_PROXY: 'loopback' },
    config: {
      retry_times: 0,
      rate_limits: { per_ip: { rpm: 1 } },
      prices: { 'gpt-realtime': { input: 4, output: 16 } },
      channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: 'sk-up-realtime', priority: 0, model_mapping: {} }],
      users: [
        { username: 'u1', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true },
        { username: 'u2', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true },
      ],
      tokens: [
        { name: 'key-a', user: 'u1', key: keyA, quota: 1_000_000_000_000, expires_at: 0, enabled: true },
        { name: 'key-b', user: 'u2', key: keyB, quota: 1_000_000_000_000, expires_at: 0, enabled: true },
      ],
    },
  });
}, 30_000);
afterAll(async () => {
  await gateway.close();
  await upstream.close();
}, 30_000);

/** Opens a session as the client the proxy names; resolves with the HTTP status of a refused upgrade, or 101. */
function openAs(key: string, clientAddress: string): Promise<number> {
  const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': clientAddress } });
  return new Promise((resolve) => {
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('message', () => {
      resolve(101);
      socket.close();
    });
    socket.once('error', () => resolve(-1));
  });
}

describe('audit: realtime per-IP rpm behind a trusted proxy', () => {
  it('two different clients of the proxy each get their own per-IP window (1 rpm each)', async () => {
    expect(await openAs(keyA, '203.0.113.5')).toBe(101);
    expect(await openAs(keyB, '203.0.113.6')).toBe(101);
  });
});
