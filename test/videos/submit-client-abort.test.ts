/**
 * The client leaves while the gateway reads the upstream's 2xx submit answer (the upstream accepted the task).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { preferredDialect } from './videos-fixture.js';

let gateway: TestGateway;
let server: ReturnType<typeof createServer>;
let clock = Date.now();
let release!: () => void;
let submitted!: () => void;
const gotSubmit = new Promise<void>((resolve) => (submitted = resolve));
const key = `sk-${'q'.repeat(48)}`;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id":"video_slow","object":"video","status":"queued",');
      submitted();
      void new Promise<void>((resolve) => (release = resolve)).then(() => response.end('"progress":0}'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  gateway = await startTestGateway({
    dialect: preferredDialect(),
    now: () => clock,
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      retry_times: 0,
      prices: { 'sora-2': { per_second: 0.1 } },
      channels: [{ type: 'openai', name: 'slow', base_url: url, key: 'sk-up', models: ['sora-2'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {}, groups: ['default'], model_mapping: {} }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: [{ name: 'k', user: 'u', key, quota: 1_000_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  release?.();
  await gateway.close();
  await new Promise((resolve) => server.close(resolve));
});

it('charges nothing and leaves no task when the client leaves before the submit answer is read', async () => {
  const { db } = gateway.gateway.services.database;
  const used = async () => Number((await db.selectFrom('tokens').select('used_quota').where('name', '=', 'k').executeTakeFirstOrThrow()).used_quota);
  const channelUsed = async () => Number((await db.selectFrom('channels').select('used_quota').executeTakeFirstOrThrow()).used_quota);
  const before = await used();
  const channelBefore = await channelUsed();
  const controller = new AbortController();
  const pending = fetch(`${gateway.url}/v1/videos`, { method: 'POST', signal: controller.signal, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sora-2', prompt: 'x', seconds: '4' }) }).catch(() => undefined);
  await gotSubmit;
  await new Promise((resolve) => setTimeout(resolve, 50));
  controller.abort();
  await pending;
  await new Promise((resolve) => setTimeout(resolve, 300));
  await gateway.settled();
  // No task reached the client: nothing is charged and no row is left, at once (not 15 minutes later).
  expect((await used()) - before).toBe(0);
  expect((await channelUsed()) - channelBefore).toBe(0);
  expect(await db.selectFrom('tasks').selectAll().execute()).toEqual([]);
  clock += 16 * 60_000;
  await gateway.gateway.services.taskEngine.pollOnce();
  await gateway.settled();
  expect((await used()) - before).toBe(0);
  expect((await channelUsed()) - channelBefore).toBe(0);
});
