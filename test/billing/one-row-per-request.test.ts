/**
 * The log writer's claim path (insert-log-rows-once.ts, sqlite-log-rows.ts) leaves out a non-refund row
 * whose request id already has one: right only while every producer gives each non-refund row an id of its
 * own. Here, through the real gateway and the openai SDK: a chat, a failover (the first channel's 500, the
 * second serves), a stream the client cuts, a Sora video that fails and is refunded, and a Realtime session
 * with two responses (`OpenAIRealtimeWS` behind the TLS front) — each request's row, and each response's,
 * has its own id (a response's is its hold's, `<session id>-<n>`: realtime-billing.ts), and the refund row
 * shares only its submit's.
 */
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import { startTlsFront } from '../realtime/tls-front.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';

const key = `sk-${'r'.repeat(48)}`;

describe.each(allDialects)('one log row per request id, on $dialect', ({ dialect, available }) => {
  let gateway: TestGateway;
  let first: FakeOpenaiUpstream;
  let second: FakeOpenaiUpstream;
  let sora: FakeVideoUpstream;
  let realtime: FakeRealtimeUpstream;
  let front: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    if (!available) return;
    [first, second, sora, realtime] = await Promise.all([
      startFakeOpenaiUpstream({ streamChunks: 20, chunkDelayMs: 20 }),
      startFakeOpenaiUpstream(),
      startFakeVideoUpstream({ expectedKeys: ['sk-up-sora'] }),
      startFakeRealtimeUpstream({ expectedKeys: ['sk-up-realtime'] }),
    ]);
    const channel = { groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: {} };
    gateway = await startTestGateway({
      dialect,
      env: { TASK_POLL_INTERVAL: '0' },
      config: {
        retry_times: 1,
        prices: { 'gpt-4o-mini': { input: 1, output: 2 }, 'sora-2': { per_second: 0.1 }, 'gpt-realtime': { input: 4, output: 16 } },
        channels: [
          { ...channel, name: 'first', type: 'openai', priority: 10, base_url: first.url, key: 'sk-up-1', models: ['gpt-4o-mini'] },
          { ...channel, name: 'second', type: 'openai', priority: 0, base_url: second.url, key: 'sk-up-2', models: ['gpt-4o-mini'] },
          { ...channel, name: 'sora', type: 'openai', priority: 0, base_url: sora.url, key: 'sk-up-sora', models: ['sora-2'] },
          { ...channel, name: 'realtime', type: 'openai', priority: 0, base_url: realtime.url, key: 'sk-up-realtime', models: ['gpt-realtime'] },
        ],
        users: [{ username: 'rita', password: 'rita-password', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
        tokens: [{ name: 'r', user: 'rita', key, quota: 1_000_000_000, expires_at: 0, enabled: true }],
      },
    });
    front = await startTlsFront(gateway.url);
  }, 30_000);
  afterAll(async () => {
    if (!available) return;
    await front.close();
    await gateway.close();
    await Promise.all([first.close(), second.close(), sora.close(), realtime.close()]);
  }, 30_000);

  it.skipIf(!available)('gives every non-refund row an id of its own: chat, failover, cut stream, task submit and its refund, two Realtime responses', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    // Failover: the first channel answers 500, the second serves.
    first.enqueueFault({ kind: 'status', status: 500 });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(second.requests.length).toBeGreaterThanOrEqual(1);
    // A stream the client cuts after its first chunk.
    const controller = new AbortController();
    const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true }, { signal: controller.signal });
    for await (const _chunk of stream) {
      controller.abort();
      break;
    }
    await gateway.settled();
    // A video that fails upstream: charged at submit, refunded by the poll.
    const video = await openai.videos.create({ model: 'sora-2', prompt: 'a cat', seconds: '4' });
    await gateway.settled();
    const db = gateway.gateway.services.database.db;
    const task = await db.selectFrom('tasks').select(['upstream_id', 'request_id']).where('public_id', '=', video.id).executeTakeFirstOrThrow();
    sora.advance(task.upstream_id ?? '', { status: 'failed', error: { code: 'internal_error', message: 'Render farm on fire.' } });
    await gateway.gateway.services.taskEngine.pollOnce();
    await gateway.settled();

    // A Realtime session with two responses: a row for each, under its hold's id.
    const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { rejectUnauthorized: false } }, new OpenAI({ apiKey: key, baseURL: `${front.url}/v1` }));
    let done = 0;
    rt.on('event', (event) => void (event.type === 'response.done' && (done += 1)));
    const closed = new Promise<void>((resolve) => rt.socket.on('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      rt.on('session.created', () => resolve());
      rt.on('error', reject);
    });
    rt.send({ type: 'response.create' });
    await expect.poll(() => done, { timeout: 5_000 }).toBe(1);
    rt.send({ type: 'response.create' });
    await expect.poll(() => done, { timeout: 5_000 }).toBe(2);
    rt.close();
    await closed;
    await gateway.settled();

    const rows = await db.selectFrom('logs').select(['request_id', 'style', 'status', 'quota']).orderBy('id').execute();
    const requests = rows.filter((row) => row.style !== 'task-refund');
    const refunds = rows.filter((row) => row.style === 'task-refund');
    expect(requests.map((row) => row.status)).toEqual([200, 200, 499, 200, 200, 200]);
    expect(requests.slice(4).map((row) => row.style)).toEqual(['openai-realtime', 'openai-realtime']);
    expect(new Set(requests.map((row) => row.request_id)).size).toBe(requests.length);
    expect(refunds.map((row) => row.request_id)).toEqual([task.request_id]);
    expect(requests[3]?.request_id).toBe(task.request_id);
    const [firstResponse, secondResponse] = requests.slice(4).map((row) => row.request_id);
    expect(secondResponse).toBe(`${firstResponse}-2`);
  });
});
