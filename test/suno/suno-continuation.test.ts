/**
 * From the tasks audit (protocols.md §2: `task_id` for continuation; the gateway shows only public `task_…`
 * ids): a continuation naming the caller's own public task id reaches the Suno proxy as the upstream id it
 * knows; one naming another user's task is refused (404) before any upstream call or charge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSunoUpstream, type FakeSunoUpstream } from '../fakes/fake-suno-upstream.js';
import { startTaskGateway } from '../support/start-task-gateway.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';

const clientKey = `sk-${'q'.repeat(48)}`;
const otherKey = `sk-${'r'.repeat(48)}`;
let suno: FakeSunoUpstream;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  suno = await startFakeSunoUpstream({ expectedKeys: ['sk-suno-up'] });
  gateway = await startTaskGateway({
    type: 'suno',
    dialect: 'sqlite',
    now: () => clock,
    retryTimes: 0,
    prices: { suno_music: 0.1, suno_lyrics: 0.02 },
    channels: [{ name: 'suno-up', base_url: suno.url, key: 'sk-suno-up', priority: 0 }],
    users: { a: clientKey, b: otherKey },
  });
});
afterAll(async () => {
  await gateway?.close();
  await suno?.close();
});

const { used, call, poll, upstreamIdOf } = taskSuiteClient({ gateway: () => gateway, key: clientKey, tokenName: 'a-key', tick: () => {
    clock += 1;
  } });

describe('Suno continuation by task_id', () => {
  it('the caller’s public task id is sent upstream as the upstream id', async () => {
    const first = (await (await call('/suno/submit/music', { prompt: '[Verse] one' })).json()) as { data: string };
    const upstreamId = await upstreamIdOf(first.data);
    suno.advance(upstreamId, { status: 'SUCCESS' });
    await poll();
    const response = await call('/suno/submit/music', { prompt: '[Verse] two', task_id: first.data, continue_at: 30, continue_clip_id: 'clip-1' });
    expect(response.status).toBe(200);
    const sent = suno.requests.filter((request) => request.method === 'POST' && request.path === '/suno/submit/MUSIC').at(-1);
    expect((sent?.body as Record<string, unknown>).task_id).toBe(upstreamId);
  });

  it('another user’s task id is refused with no upstream call and no charge', async () => {
    const theirs = (await (await call('/suno/submit/music', { prompt: '[Verse] theirs' }, otherKey)).json()) as { data: string };
    const calls = suno.requests.length;
    const before = await used();
    const response = await call('/suno/submit/music', { prompt: '[Verse] mine', task_id: theirs.data, continue_at: 10 });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(suno.requests.length).toBe(calls);
    expect((await used()) - before).toBe(0);
  });
});
