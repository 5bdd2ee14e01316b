/**
 * Suno (protocols.md §2) through the real gateway: `suno` channels in front of the fake Suno-API proxy
 * (test/fakes/fake-suno-upstream.ts). Charges are computed here from docs/behaviour.md "Suno".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSunoUpstream } from '../fakes/fake-suno-upstream.js';
import { startTaskGateway } from '../support/start-task-gateway.js';
import { startTaskProxies, type TaskProxies } from '../support/start-task-proxies.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';

const clientKey = `sk-${'m'.repeat(48)}`;
const otherKey = `sk-${'n'.repeat(48)}`;
const quotaPerUnit = 500_000;
const prices = { suno_music: 0.1, suno_lyrics: 0.02 } as const;
const charge = (model: keyof typeof prices) => prices[model] * quotaPerUnit;

let suno: FakeSunoUpstream;
let spare: FakeSunoUpstream;
let proxies: TaskProxies<'suno'>;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  proxies = await startTaskProxies('suno');
  [suno, spare] = [proxies.up, proxies.spare];
  gateway = await startTaskGateway({
    type: 'suno',
    now: () => clock,
    prices,
    channels: proxies.channels,
    users: { singer: clientKey, other: otherKey },
  });
});
afterAll(async () => {
  await gateway.close();
  await proxies.close();
});

const { used, call, poll, upstreamIdOf } = taskSuiteClient({ gateway: () => gateway, key: clientKey, tokenName: 'singer-key', tick: () => {
    clock += 1;
  } });

describe('Suno tasks', () => {
  it('submits music, answers the public id, charges per call, and shows the clips once the song is done', async () => {
    const before = await used();
    const response = await call('/suno/submit/music', { prompt: '[Verse] Rain on the window', tags: 'lofi', mv: 'chirp-v4', make_instrumental: false, notify_hook: 'https://client.example/hook' });
    expect(response.status).toBe(200);
    const submitted = (await response.json()) as { code: string; message: string; data: string };
    expect(submitted).toMatchObject({ code: 'success', message: '' });
    expect(submitted.data).toMatch(/^task_[A-Za-z0-9]{32}$/);
    expect((await used()) - before).toBe(charge('suno_music'));
    const sent = suno.requests.find((request) => request.method === 'POST' && request.path === '/suno/submit/MUSIC');
    // The hook would be called with the upstream's ids: it is not sent.
    expect(sent?.body).toEqual({ prompt: '[Verse] Rain on the window', tags: 'lofi', mv: 'chirp-v4', make_instrumental: false });

    expect(await (await call(`/suno/fetch/${submitted.data}`)).json()).toMatchObject({ code: 'success', data: { task_id: submitted.data, action: 'MUSIC', status: 'SUBMITTED', progress: '0%', data: null } });
    const upstreamId = await upstreamIdOf(submitted.data);
    suno.advance(upstreamId, { status: 'IN_PROGRESS', progress: '50%' });
    await poll();
    expect(await (await call(`/suno/fetch/${submitted.data}`)).json()).toMatchObject({ data: { status: 'IN_PROGRESS', progress: '50%' } });
    suno.advance(upstreamId, { status: 'SUCCESS' });
    await poll();
    const done = (await (await call(`/suno/fetch/${submitted.data}`)).json()) as { data: { status: string; progress: string; data: { audio_url: string; status: string }[] } };
    expect(done.data).toMatchObject({ status: 'SUCCESS', progress: '100%' });
    expect(done.data.data).toHaveLength(2);
    expect(done.data.data.every((clip) => clip.status === 'complete' && clip.audio_url.endsWith('.mp3'))).toBe(true);
    expect(JSON.stringify(done)).not.toContain(upstreamId);
    expect((await used()) - before).toBe(charge('suno_music'));
  });

  it('fetches a batch of the caller’s own tasks in the order asked, filtered by action', async () => {
    const lyrics = ((await (await call('/suno/submit/LYRICS', { prompt: 'a song about tea' })).json()) as { data: string }).data;
    const music = ((await (await call('/suno/submit/music', { gpt_description_prompt: 'upbeat jazz' })).json()) as { data: string }).data;
    const foreign = ((await (await call('/suno/submit/lyrics', { prompt: 'not yours' }, otherKey)).json()) as { data: string }).data;
    const batch = (await (await call('/suno/fetch', { ids: [music, foreign, lyrics, 'task_unknown'] })).json()) as { code: string; data: { task_id: string; action: string }[] };
    expect(batch.code).toBe('success');
    expect(batch.data.map((task) => [task.task_id, task.action])).toEqual([
      [music, 'MUSIC'],
      [lyrics, 'LYRICS'],
    ]);
    const onlyLyrics = (await (await call('/suno/fetch', { ids: [music, lyrics], action: 'LYRICS' })).json()) as { data: { task_id: string }[] };
    expect(onlyLyrics.data.map((task) => task.task_id)).toEqual([lyrics]);
    expect(await (await call('/suno/fetch', { ids: [] })).json()).toEqual({ code: 'success', message: '', data: [] });
    expect((await call('/suno/fetch', { ids: 'x' })).status).toBe(400);
    const notMine = await call(`/suno/fetch/${foreign}`);
    expect(notMine.status).toBe(404);
    expect(await notMine.json()).toMatchObject({ code: 'task_not_exist', data: null });
  });

  it('refunds a failed task once', async () => {
    const before = await used();
    const id = ((await (await call('/suno/submit/music', { prompt: 'doomed' })).json()) as { data: string }).data;
    suno.advance(await upstreamIdOf(id), { status: 'FAILURE', failReason: 'Content policy' });
    await poll();
    await poll();
    expect(await (await call(`/suno/fetch/${id}`)).json()).toMatchObject({ data: { status: 'FAILURE', fail_reason: 'Content policy' } });
    expect(await used()).toBe(before);
    const refunds = await gateway.gateway.services.database.db.selectFrom('logs').selectAll().where('style', '=', 'task-refund').where('path', '=', `/suno/fetch/${id}`).execute();
    expect(refunds.map((row) => Number(row.quota))).toEqual([-charge('suno_music')]);
  });

  it('fails over when the proxy does not take the task, and charges once', async () => {
    suno.enqueueFault({ route: 'submit', status: 200, body: { code: 'fail', message: 'no credits', data: null } });
    const before = await used();
    const response = await call('/suno/submit/lyrics', { prompt: 'second chance' });
    expect(response.status).toBe(200);
    expect(spare.requests.filter((request) => request.path === '/suno/submit/LYRICS')).toHaveLength(1);
    expect((await used()) - before).toBe(charge('suno_lyrics'));
  });

  it('tests a channel with an empty batch fetch, and fails one whose key the proxy refuses', async () => {
    const snapshot = gateway.gateway.services.catalog.snapshot;
    const good = snapshot.channels.find((channel) => channel.name === 'suno-up');
    const response = await fetch(`${gateway.url}/api/admin/channels/${good?.id}/test`, { method: 'POST', headers: { authorization: `Bearer ${gateway.adminKey}` } });
    expect(await response.json()).toMatchObject({ success: true });
    expect(suno.requests.at(-1)).toMatchObject({ path: '/suno/fetch', body: { ids: [] } });
    const update = await fetch(`${gateway.url}/api/admin/channels/${good?.id}`, { method: 'PUT', headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ key: 'sk-wrong' }) });
    expect(update.status).toBe(200);
    const failed = await fetch(`${gateway.url}/api/admin/channels/${good?.id}/test`, { method: 'POST', headers: { authorization: `Bearer ${gateway.adminKey}` } });
    expect(await failed.json()).toMatchObject({ success: false, data: { status: 401 } });
    await fetch(`${gateway.url}/api/admin/channels/${good?.id}`, { method: 'PUT', headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ key: 'sk-suno-up' }) });
  });

  it('refuses bad submits in the task envelope, at no charge', async () => {
    const before = await used();
    const cases: [string, unknown, string][] = [
      ['/suno/submit/concat', { prompt: 'x' }, 'invalid_request'],
      ['/suno/submit/lyrics', {}, 'invalid_request'],
      ['/suno/submit/music', { title: 'no prompt' }, 'invalid_request'],
      ['/suno/submit/music', { prompt: 'x', make_instrumental: 'yes' }, 'invalid_request'],
      ['/suno/submit/music', { prompt: 'x', continue_at: -1 }, 'invalid_request'],
    ];
    for (const [path, body, code] of cases) {
      const response = await call(path, body);
      expect(response.status, path).toBe(400);
      expect(await response.json()).toMatchObject({ code, data: null });
    }
    const unauthenticated = await fetch(`${gateway.url}/suno/submit/music`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"x"}' });
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toMatchObject({ code: 'missing_api_key', data: null });
    expect(await used()).toBe(before);
  });
});
