/**
 * channel configuration, routing and the channel test for tencent-vod channels.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTencentVodUpstream, type FakeTencentVodUpstream } from '../fakes/fake-tencent-vod-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { preferredDialect } from './videos-fixture.js';

const subAppId = 1_500_012_345;
const secretId = 'AKIDauditvod111111111111111111111111';
const secretKey = 'vodAuditSecret11111111111111111111';
const clientKey = `sk-${'c'.repeat(48)}`;

let vod: FakeTencentVodUpstream;
let notVod: Server;
let notVodUrl = '';
let gateway: TestGateway;
let clock = Date.now();

const channel = (name: string, fields: Record<string, unknown>) => ({
  name,
  type: 'tencent-vod' as const,
  base_url: vod.url,
  key: `${subAppId}|${secretId}|${secretKey}`,
  models: ['Kling-2.6'],
  model_mapping: {},
  groups: ['default'],
  priority: 0,
  weight: 1,
  enabled: true,
  auto_disable: false,
  settings: {},
  ...fields,
});

beforeAll(async () => {
  vod = await startFakeTencentVodUpstream({ secrets: { [secretId]: secretKey }, subAppId, now: () => clock });
  // Not VOD at all: a web server that answers 404 to everything.
  notVod = createServer((_request, response) => {
    response.writeHead(404, { 'content-type': 'text/html' });
    response.end('<html><body>Not Found</body></html>');
  });
  await new Promise<void>((resolve) => notVod.listen(0, '127.0.0.1', resolve));
  notVodUrl = `http://127.0.0.1:${(notVod.address() as AddressInfo).port}`;
  gateway = await startTestGateway({
    dialect: preferredDialect(),
    now: () => clock,
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      prices: { 'Kling-2.6': { per_second: 0.5 } },
      channels: [
        // Preferred, but its key names another account's SubAppId: an operator's mistake, not the client's.
        channel('wrong-subapp', { priority: 10, key: `${subAppId + 1}|${secretId}|${secretKey}` }),
        channel('good', { priority: 0 }),
        channel('not-vod', { priority: -10, base_url: notVodUrl, models: ['Kling-2.6-unused'] }),
        { ...channel('openai-one', { type: 'openai', key: 'sk-upstream-openai', models: ['gpt-4o-mini'] }) },
      ],
      users: [{ username: 'maker', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'maker-key', user: 'maker', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await vod?.close();
  await new Promise((resolve) => notVod?.close(resolve));
});

const admin = (method: string, path: string, body?: unknown) =>
  fetch(`${gateway.url}/api/admin${path}`, { method, headers: { authorization: `Bearer ${gateway.adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const idOf = (name: string) => gateway.gateway.services.catalog.snapshot.channels.find((candidate) => candidate.name === name)?.id as number;

describe('tencent-vod channel probes', () => {
  it('a channel whose key names a wrong SubAppId is a channel failure (tried elsewhere), not the client’s 400 quoting the operator’s SubAppId', async () => {
    const response = await fetch(`${gateway.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'Kling-2.6', prompt: 'x' }) });
    const text = await response.text();
    expect(text).not.toContain(String(subAppId + 1));
    expect(response.status).toBe(200);
  });

  it('the admin API refuses to create a tencent-vod channel with a malformed key (control)', async () => {
    const response = await admin('POST', '/channels', { ...channel('bad-create', { key: 'sk-not-a-vod-key' }), base_url: vod.url });
    expect(response.status).toBe(400);
  });

  it('the admin API refuses to give an existing tencent-vod channel a malformed key', async () => {
    const response = await admin('PUT', `/channels/${idOf('good')}`, { key: 'sk-not-a-vod-key' });
    // Put the real key back before asserting, so later tests see a working channel.
    if (response.status !== 400) await admin('PUT', `/channels/${idOf('good')}`, { key: `${subAppId}|${secretId}|${secretKey}` });
    expect(response.status).toBe(400);
  });

  it('the admin API refuses to turn an openai channel with an OpenAI key into a tencent-vod channel', async () => {
    const response = await admin('PUT', `/channels/${idOf('openai-one')}`, { type: 'tencent-vod' });
    expect(response.status).toBe(400);
  });

  it('the channel test does not call a base URL that answers HTTP 404 (not VOD) a working channel', async () => {
    const response = await admin('POST', `/channels/${idOf('not-vod')}/test`);
    const json = (await response.json()) as { success: boolean; data: { ok?: boolean; status: number | null } };
    expect(json).toMatchObject({ success: false });
  });

  it('the channel test does not call a key whose SubAppId VOD refuses (InvalidParameterValue.SubAppId) a working key', async () => {
    const response = await admin('POST', `/channels/${idOf('wrong-subapp')}/test`);
    expect(await response.json()).toMatchObject({ success: false });
  });

  it('the channel test of the good channel succeeds', async () => {
    const response = await admin('POST', `/channels/${idOf('good')}/test`);
    const json = await response.json();
    expect(json).toMatchObject({ success: true });
  });

  it('a tencent-vod channel is never chosen for chat, even when it lists the model', async () => {
    await admin('PUT', `/channels/${idOf('good')}`, { models: ['Kling-2.6', 'gpt-4o-mini-vod'] });
    const before = vod.requests.length;
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini-vod', messages: [{ role: 'user', content: 'hi' }] }) });
    const unlisted = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'nobody-lists-this', messages: [{ role: 'user', content: 'hi' }] }) });
    // 503 model_not_found ("no available channel") is the gateway's answer when a model is listed only by channels of other types.
    expect(unlisted.status).toBe(400);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(vod.requests.length).toBe(before);
  });
});
