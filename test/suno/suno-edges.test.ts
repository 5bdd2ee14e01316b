/**
 * Suno edge cases, from the Suno audit (protocols.md §0, §2; docs/behaviour.md "Suno"). Each test asserts the
 * correct behaviour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSunoUpstream, type FakeSunoStatus, type FakeSunoUpstream } from '../fakes/fake-suno-upstream.js';
import { startFakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTaskGateway } from '../support/start-task-gateway.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';

const clientKey = `sk-${'a'.repeat(48)}`;
const otherKey = `sk-${'b'.repeat(48)}`;
const poorKey = `sk-${'c'.repeat(48)}`;
const quotaPerUnit = 500_000;
const prices = { suno_music: 0.1, suno_lyrics: 0.02 } as const;
const charge = (model: keyof typeof prices) => prices[model] * quotaPerUnit;

let suno: FakeSunoUpstream;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  suno = await startFakeSunoUpstream({ expectedKeys: ['sk-suno-up'] });
  gateway = await startTaskGateway({
    type: 'suno',
    now: () => clock,
    retryTimes: 0,
    maxBodyMb: 0.01,
    prices: { ...prices, 'chatty-model': 0.01 },
    channels: [{ name: 'suno-up', base_url: suno.url, key: 'sk-suno-up', priority: 10, models: ['suno_music', 'suno_lyrics', 'chatty-model', 'sora-2'] }],
    // poor-key covers one music call and a half: only one may be accepted.
    users: { singer: clientKey, other: otherKey, poor: { key: poorKey, quota: Math.round(charge('suno_music') * 1.5) } },
  });
});
afterAll(async () => {
  await gateway.close();
  await suno.close();
});

const { used, call, poll, upstreamIdOf } = taskSuiteClient({ gateway: () => gateway, key: clientKey, tokenName: 'singer-key', tick: () => {
    clock += 1;
  } });
const submit = async (action: string, body: unknown, key = clientKey) => {
  const response = await call(`/suno/submit/${action}`, body, key);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: string }).data;
};

describe('Suno audit: money', () => {
  it('refunds a task the proxy reports SUCCESS with a non-empty fail_reason (new-api treats it as failed, protocols.md §2)', async () => {
    const before = await used();
    const id = await submit('music', { prompt: 'half done' });
    suno.advance(await upstreamIdOf(id), { status: 'SUCCESS', failReason: 'clip generation failed' });
    await poll();
    await poll();
    const fetched = (await (await call(`/suno/fetch/${id}`)).json()) as { data: { status: string; fail_reason: string } };
    expect(fetched.data.status).toBe('FAILURE');
    expect(await used()).toBe(before);
  });

  for (const status of ['failed', 'FAIL', 'fail', 'error']) {
    it(`refunds a task the proxy reports with legacy status ${status}`, async () => {
      const before = await used();
      const id = await submit('lyrics', { prompt: `legacy ${status}` });
      suno.advance(await upstreamIdOf(id), { status: status as FakeSunoStatus, failReason: 'nope' });
      await poll();
      expect(await (await call(`/suno/fetch/${id}`)).json()).toMatchObject({ data: { status: 'FAILURE' } });
      expect(await used()).toBe(before);
    });
  }

  it('does not let concurrent submits overspend a key', async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => call('/suno/submit/music', { prompt: 'race' }, poorKey)));
    const accepted = responses.filter((response) => response.status === 200);
    expect(accepted.length).toBe(1);
    expect(await used('poor-key')).toBe(charge('suno_music'));
  });

  it('charges lyrics at the lyrics price and music at the music price whatever the case of the action', async () => {
    let before = await used();
    await submit('LyRiCs', { prompt: 'case', action: 'MUSIC' });
    expect((await used()) - before).toBe(charge('suno_lyrics'));
    expect(suno.requests.at(-1)?.path).toBe('/suno/submit/LYRICS');
    before = await used();
    await submit('Music', { prompt: 'case', action: 'LYRICS' });
    expect((await used()) - before).toBe(charge('suno_music'));
  });
});

describe('Suno audit: what goes upstream', () => {
  it('does not send the older adaptor\'s call_back_url either (the proxy would call the client with its own ids)', async () => {
    await submit('lyrics', { prompt: 'hook', call_back_url: 'https://client.example/cb' });
    const sent = suno.requests.at(-1);
    expect(sent?.path).toBe('/suno/submit/LYRICS');
    expect(sent?.body).toEqual({ prompt: 'hook' });
  });
});

describe('Suno audit: what a fetch shows', () => {
  it('never shows the upstream task id (lyrics)', async () => {
    const id = await submit('lyrics', { prompt: 'a song about tea' });
    const upstreamId = await upstreamIdOf(id);
    suno.advance(upstreamId, { status: 'SUCCESS' });
    await poll();
    const text = await (await call(`/suno/fetch/${id}`)).text();
    expect(text).toContain('SUCCESS');
    expect(text).not.toContain(upstreamId);
  });

  it('shows a failed task at progress 100% (new-api, protocols.md §2)', async () => {
    const id = await submit('music', { prompt: 'doomed' });
    const upstreamId = await upstreamIdOf(id);
    suno.advance(upstreamId, { status: 'IN_PROGRESS', progress: '30%' });
    await poll();
    suno.advance(upstreamId, { status: 'FAILURE', failReason: 'policy' });
    await poll();
    expect(await (await call(`/suno/fetch/${id}`)).json()).toMatchObject({ data: { status: 'FAILURE', progress: '100%' } });
  });

  it('does not let video routes read a suno task', async () => {
    const id = await submit('lyrics', { prompt: 'not a video' });
    for (const path of [`/v1/videos/${id}`, `/v1/video/generations/${id}`, `/v1/videos/${id}/content`]) {
      const response = await call(path);
      expect(response.status, path).toBe(404);
    }
    const remix = await call(`/v1/videos/${id}/remix`, { prompt: 'x' });
    expect(remix.status).toBe(404);
  });

  it('batch: only the caller’s, bounded, typed', async () => {
    const mine = await submit('lyrics', { prompt: 'mine' });
    const theirs = await submit('lyrics', { prompt: 'theirs' }, otherKey);
    const batch = (await (await call('/suno/fetch', { ids: [theirs, mine, mine, 'x'.repeat(5000)] })).json()) as { data: { task_id: string }[] };
    expect(batch.data.map((task) => task.task_id)).not.toContain(theirs);
    expect((await call('/suno/fetch', { ids: Array.from({ length: 101 }, () => mine) })).status).toBe(400);
    for (const ids of [[1], [null], [{}], [mine, 2]]) {
      const response = await call('/suno/fetch', { ids });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ data: null });
    }
  });
});

describe('Suno audit: envelopes', () => {
  it('answers errors under /suno in the task envelope', async () => {
    const expectTask = async (response: Response, status: number) => {
      expect(response.status).toBe(status);
      const body = (await response.json()) as Record<string, unknown>;
      expect(typeof body.code).toBe('string');
      expect(typeof body.message).toBe('string');
      expect(body.data).toBeNull();
    };
    await expectTask(await call('/suno/nothing-here'), 404);
    await expectTask(await call('/suno/submit/music'), 404);
    await expectTask(await fetch(`${gateway.url}/suno/submit/music`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: '{"prompt":' }), 400);
    await expectTask(await fetch(`${gateway.url}/suno/submit/music`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'x'.repeat(20_000) }) }), 413);
    await expectTask(await fetch(`${gateway.url}/suno/submit/music`, { method: 'POST', headers: { authorization: 'Bearer sk-wrong', 'content-type': 'application/json' }, body: '{"prompt":"x"}' }), 401);
    await expectTask(await fetch(`${gateway.url}/suno/fetch`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: '[]' }), 400);
    await expectTask(await fetch(`${gateway.url}/suno/fetch/${'task_'.padEnd(37, 'z')}`, { headers: { authorization: `Bearer ${clientKey}` } }), 404);
    await expectTask(await call(`/suno/fetch/${'%ZZ'}`), 400);
  });

  it('a submit the proxy answers 200 success with data null / a number / an object is not charged and not a 500 crash', async () => {
    for (const data of [null, 123, { task_id: 'x' }]) {
      const before = await used();
      suno.enqueueFault({ route: 'submit', status: 200, body: { code: 'success', message: '', data } });
      const response = await call('/suno/submit/lyrics', { prompt: 'x' });
      expect(response.status).toBeGreaterThanOrEqual(500);
      expect(await response.json()).toMatchObject({ data: null });
      expect(await used()).toBe(before);
    }
  });
});

describe('Suno audit: routing', () => {
  it('never sends chat, images or videos to a suno channel', async () => {
    const sunoRequestsBefore = suno.requests.length;
    const chat = await call('/v1/chat/completions', { model: 'chatty-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).not.toBe(200);
    const video = await call('/v1/videos', { model: 'sora-2', prompt: 'x' });
    expect(video.status).not.toBe(200);
    const image = await call('/v1/images/generations', { model: 'chatty-model', prompt: 'x' });
    expect(image.status).not.toBe(200);
    expect(suno.requests.length).toBe(sunoRequestsBefore);
  });
});
void startFakeOpenaiUpstream;

describe('Suno audit: timeouts and channel accounting', () => {
  // Its own gateway: the clock jump must not time out the other describes' tasks.
  let lone: FakeSunoUpstream;
  let gw: TestGateway;
  let t = Date.now();
  beforeAll(async () => {
    lone = await startFakeSunoUpstream({ expectedKeys: ['sk-suno-up'] });
    // retry_times 2 is the site default, which this gateway always ran with.
    gw = await startTaskGateway({ type: 'suno', now: () => t, retryTimes: 2, prices: { suno_music: prices.suno_music }, channels: [{ name: 'suno-up', base_url: lone.url, key: 'sk-suno-up', priority: 0 }], users: { singer: clientKey } });
  });

  afterAll(async () => {
    await gw.close();
    await lone.close();
  });
  const db = () => gw.gateway.services.database.db;
  const figures = async () => {
    await gw.settled();
    const token = Number((await db().selectFrom('tokens').select('used_quota').where('name', '=', 'singer-key').executeTakeFirstOrThrow()).used_quota);
    const channel = Number((await db().selectFrom('channels').select('used_quota').where('name', '=', 'suno-up').executeTakeFirstOrThrow()).used_quota);
    return { token, channel };
  };
  const pass = async () => {
    t += 1;
    await gw.gateway.services.taskEngine.pollOnce();
    await gw.settled();
  };
  it('refunds once, token and channel, a task the proxy leaves out of its answers past TASK_TIMEOUT_MINUTES', async () => {
    const before = await figures();
    const response = await fetch(`${gw.url}/suno/submit/music`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: '{"prompt":"lost"}' });
    const id = ((await response.json()) as { data: string }).data;
    const upstreamId = (await db().selectFrom('tasks').select('upstream_id').where('public_id', '=', id).executeTakeFirstOrThrow()).upstream_id as string;
    expect((await figures()).token - before.token).toBe(charge('suno_music'));
    lone.tasks.delete(upstreamId);
    await pass();
    const get = async () => (await fetch(`${gw.url}/suno/fetch/${id}`, { headers: { authorization: `Bearer ${clientKey}` } })).json();
    expect(await get()).toMatchObject({ data: { status: 'SUBMITTED' } });
    t += 1441 * 60_000;
    await pass();
    await pass();
    expect(await get()).toMatchObject({ data: { status: 'FAILURE' } });
    expect(await figures()).toEqual(before);
  });
});
