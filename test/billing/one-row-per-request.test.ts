/**
 * The log writer's claim path (insert-log-rows-once.ts, sqlite-log-rows.ts) leaves out a non-refund row
 * whose request id already has one: right only while every producer gives each non-refund row an id of its
 * own. Here, through the real gateway and the openai SDK: a chat, a failover (the first channel's 500, the
 * second serves), a stream the client cuts, and a Sora video that fails and is refunded — each request's
 * row has its own request id, and the refund row shares only its submit's. (Realtime responses use their
 * holds' ids, `<session id>-<n>`, one counter for every hold: realtime-billing.ts.)
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';

const key = `sk-${'r'.repeat(48)}`;

describe.each(allDialects)('one log row per request id, on $dialect', ({ dialect, available }) => {
  let gateway: TestGateway;
  let first: FakeOpenaiUpstream;
  let second: FakeOpenaiUpstream;
  let sora: FakeVideoUpstream;

  beforeAll(async () => {
    if (!available) return;
    [first, second, sora] = await Promise.all([startFakeOpenaiUpstream({ streamChunks: 20, chunkDelayMs: 20 }), startFakeOpenaiUpstream(), startFakeVideoUpstream({ expectedKeys: ['sk-up-sora'] })]);
    const channel = { groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: {} };
    gateway = await startTestGateway({
      dialect,
      env: { TASK_POLL_INTERVAL: '0' },
      config: {
        retry_times: 1,
        prices: { 'gpt-4o-mini': { input: 1, output: 2 }, 'sora-2': { per_second: 0.1 } },
        channels: [
          { ...channel, name: 'first', type: 'openai', priority: 10, base_url: first.url, key: 'sk-up-1', models: ['gpt-4o-mini'] },
          { ...channel, name: 'second', type: 'openai', priority: 0, base_url: second.url, key: 'sk-up-2', models: ['gpt-4o-mini'] },
          { ...channel, name: 'sora', type: 'openai', priority: 0, base_url: sora.url, key: 'sk-up-sora', models: ['sora-2'] },
        ],
        users: [{ username: 'rita', password: 'rita-password', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
        tokens: [{ name: 'r', user: 'rita', key, quota: 1_000_000_000, expires_at: 0, enabled: true }],
      },
    });
  });
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await Promise.all([first.close(), second.close(), sora.close()]);
  });

  it.skipIf(!available)('gives every non-refund row an id of its own: chat, failover, cut stream, task submit and its refund', async () => {
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

    const rows = await db.selectFrom('logs').select(['request_id', 'style', 'status', 'quota']).orderBy('id').execute();
    const requests = rows.filter((row) => row.style !== 'task-refund');
    const refunds = rows.filter((row) => row.style === 'task-refund');
    expect(requests.map((row) => row.status)).toEqual([200, 200, 499, 200]);
    expect(new Set(requests.map((row) => row.request_id)).size).toBe(requests.length);
    expect(refunds.map((row) => row.request_id)).toEqual([task.request_id]);
    expect(requests.at(-1)?.request_id).toBe(task.request_id);
  });
});
