/**
 * `GET /api/log/self` and `GET /api/task/self` (new-api's user views) on every database: two users log
 * in to the console, make requests with their API keys — chat with the openai SDK, a Sora video whose
 * client leaves after the upstream's 2xx (held by test/fakes/held-answer-proxy.ts, as in
 * test/videos/submit-client-abort.test.ts), a Midjourney imagine, a Suno song — and each sees exactly their
 * own rows and tasks, in the user's view (no channel, upstream model, attempts, error text or upstream
 * task id), through the admin list's filters and pages. Before these routes the video's public id was
 * named only in the admin log: the user who paid for it could not find it.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMidjourneyUpstream, type FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startFakeSunoUpstream, type FakeSunoUpstream } from '../fakes/fake-suno-upstream.js';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startHeldAnswerProxy, type HeldAnswerProxy } from '../fakes/held-answer-proxy.js';
import { callGateway } from '../admin/admin-client.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { channelDefaults, keys, logInTwoUsers, quotaPerUnit, twoUsersConfig, videoCharge, type TwoUsers } from './two-users-fixture.js';

/** When each step's requests are made (the gateway's clock): the time filters cut between them. */
const times = { aliceChats: 1_800_000_000_000, aliceSecondKey: 1_800_000_010_000, bob: 1_800_000_020_000, video: 1_800_000_030_000, imagine: 1_800_000_040_000, refund: 1_800_000_050_000 };
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exactly the fields of a user's log row and task (docs/behaviour.md "Console: a user's own log and tasks"). */
const ownLogFields = [
  'request_id', 'created_at', 'token_id', 'token_name', 'model', 'style', 'path', 'is_stream', 'status', 'input_tokens', 'cache_read_tokens', 'cache_write_tokens',
  'cache_write_1h_tokens', 'audio_input_tokens', 'output_tokens', 'reasoning_tokens', 'audio_output_tokens', 'image_input_tokens', 'image_output_tokens',
  'web_search_calls', 'quota', 'latency_ms', 'first_token_ms', 'warnings', 'usage_source', 'ip', 'task_id',
].sort();
const ownTaskFields = ['task_id', 'kind', 'action', 'origin_task_id', 'token_id', 'model', 'status', 'progress', 'quota', 'refunded', 'fail_reason', 'created_at', 'updated_at', 'completed_at'].sort();

describe.each(allDialects)('a user reads their own log and tasks, on $dialect', ({ dialect, available }) => {
  let gateway: TestGateway;
  let chat: FakeOpenaiUpstream;
  let sora: FakeVideoUpstream;
  let soraProxy: HeldAnswerProxy;
  let mj: FakeMidjourneyUpstream;
  let suno: FakeSunoUpstream;
  let clock = times.aliceChats;
  let holding = false;
  let sessions: TwoUsers['sessions'];
  let ids: TwoUsers['ids'];
  const tasks = { video: '', videoUpstream: '', imagine: '', song: '' };

  const db = () => gateway.gateway.services.database.db;
  const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const post = (key: string, path: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${gateway.url}${path}`, { method: 'POST', ...(signal === undefined ? {} : { signal }), headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const self = async (user: 'alice' | 'bob', path: string) => {
    const answer = await callGateway(gateway, 'GET', path, { headers: { cookie: sessions[user] } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.success).toBe(true);
    return answer.body.data as { items: Record<string, any>[]; total: number; page: number; page_size: number };
  };
  /** The user's log rows as the database holds them, newest request first (ties by row id): what their view must list. */
  const storedLog = async (userId: number) => db().selectFrom('logs').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();

  beforeAll(async () => {
    if (!available) return;
    [chat, sora, mj, suno] = await Promise.all([
      startFakeOpenaiUpstream(),
      startFakeVideoUpstream({ expectedKeys: ['sk-up-sora'] }),
      startFakeMidjourneyUpstream({ expectedKeys: ['mj-secret-up'] }),
      startFakeSunoUpstream({ expectedKeys: ['sk-suno-up'] }),
    ]);
    soraProxy = await startHeldAnswerProxy(sora.url, (request) => holding && request.method === 'POST' && request.url === '/v1/videos');
    gateway = await startTestGateway({
      dialect,
      now: () => clock,
      // The default wait: the held answer is released 250 ms after the client left, well within it even on a loaded machine.
      env: { TASK_POLL_INTERVAL: '0', USAGE_WAIT_SECONDS: '5' },
      config: {
        retry_times: 0,
        prices: { 'gpt-4o-mini': { input: 1, output: 2 }, 'sora-2': { per_second: 0.1 }, suno_music: { per_call: 0.1 }, mj_imagine: { per_call: 0.05 } },
        channels: [
          // The chat channel maps the model: the upstream model is the operator's business, not the user's.
          { ...channelDefaults, name: 'chat', type: 'openai', base_url: chat.url, key: 'sk-up-chat', models: ['gpt-4o-mini'], model_mapping: { 'gpt-4o-mini': 'gpt-4o-mini-2024-07-18' } },
          { ...channelDefaults, name: 'sora', type: 'openai', base_url: soraProxy.url, key: 'sk-up-sora', models: ['sora-2'] },
          { ...channelDefaults, name: 'mj', type: 'midjourney', base_url: mj.url, key: 'mj-secret-up', models: ['mj_imagine'] },
          { ...channelDefaults, name: 'suno', type: 'suno', base_url: suno.url, key: 'sk-suno-up', models: ['suno_music'] },
        ],
        ...twoUsersConfig,
      },
    });
    ({ ids, sessions } = await logInTwoUsers(gateway));

    // Alice: two chats on her first key (one streamed), one on her second.
    await openai(keys.aliceA).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one' }] });
    const stream = await openai(keys.aliceA).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'two' }], stream: true });
    for await (const _chunk of stream);
    clock = times.aliceSecondKey;
    await openai(keys.aliceB).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'three' }] });
    // Bob: a chat and a song.
    clock = times.bob;
    await openai(keys.bob).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'bob' }] });
    const song = await post(keys.bob, '/suno/submit/music', { prompt: '[Verse] bob', tags: 'lofi', mv: 'chirp-v4' });
    expect(song.status).toBe(200);
    tasks.song = ((await song.json()) as { data: string }).data;
    // Alice's video: her SDK leaves once the upstream's 2xx is half in; the gateway reads the rest and keeps the task.
    clock = times.video;
    holding = true;
    const controller = new AbortController();
    const left = openai(keys.aliceA).videos.create({ model: 'sora-2', prompt: 'a left cat', seconds: '4' }, { signal: controller.signal }).then(
      () => 'answered',
      () => 'aborted',
    );
    const held = await soraProxy.nextHeld();
    holding = false;
    await delay(50);
    controller.abort();
    expect(await left).toBe('aborted');
    await delay(250);
    held.release();
    await gateway.settled();
    tasks.videoUpstream = (JSON.parse(held.body) as { id: string }).id;
    // Alice's imagine, on her second key.
    clock = times.imagine;
    const imagine = await post(keys.aliceB, '/mj/submit/imagine', { prompt: 'a cat' });
    expect(imagine.status).toBe(200);
    tasks.imagine = ((await imagine.json()) as { result: string }).result;
    await gateway.settled();
    const video = await db().selectFrom('tasks').select('public_id').where('upstream_id', '=', tasks.videoUpstream).executeTakeFirstOrThrow();
    tasks.video = video.public_id;
  });
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await Promise.all([soraProxy.close(), chat.close(), sora.close(), mj.close(), suno.close()]);
  });

  it.skipIf(!available)('lists each user exactly their own log rows, newest first, in the user view', async () => {
    for (const user of ['alice', 'bob'] as const) {
      const stored = await storedLog(ids[user]);
      const page = await self(user, '/api/log/self?page_size=100');
      expect(page.total).toBe(stored.length);
      expect(page.items.map((item) => item.request_id)).toEqual(stored.map((row) => row.request_id));
      for (const item of page.items) expect(Object.keys(item).sort()).toEqual(ownLogFields);
    }
    expect((await storedLog(ids.alice)).length).toBe(5);
    expect((await storedLog(ids.bob)).length).toBe(2);

    const alice = (await self('alice', '/api/log/self')).items;
    const stored = await storedLog(ids.alice);
    // Row by row, the figures are the stored ones; the upstream model, the channel and the text of errors are not shown.
    for (const [index, item] of alice.entries()) {
      const row = stored[index] as (typeof stored)[number];
      expect(item).toMatchObject({ created_at: row.created_at, token_id: row.token_id, token_name: row.token_name, model: row.model, status: row.status, quota: row.quota, input_tokens: row.input_tokens, output_tokens: row.output_tokens, is_stream: row.is_stream, path: row.path });
      expect(JSON.stringify(item)).not.toContain('gpt-4o-mini-2024-07-18');
      expect(JSON.stringify(item)).not.toContain(tasks.videoUpstream);
    }
    // The left video: its log row (status 499, charged) names the task the client never got the id of.
    const video = alice.find((item) => item.status === 499);
    expect(video).toMatchObject({ model: 'sora-2', quota: videoCharge, task_id: tasks.video, path: '/v1/videos' });
    expect(alice.find((item) => item.path === '/mj/submit/imagine')).toMatchObject({ task_id: tasks.imagine, token_id: ids.aliceB });
    expect(alice.filter((item) => item.model === 'gpt-4o-mini').map((item) => item.task_id)).toEqual([null, null, null]);
    // The stored row does hold what the view leaves out.
    expect(stored.find((row) => row.status === 499)?.error).toContain(tasks.videoUpstream);
    expect(stored.find((row) => row.model === 'gpt-4o-mini')?.upstream_model).toBe('gpt-4o-mini-2024-07-18');
    // Bob's list has none of Alice's requests.
    const bob = (await self('bob', '/api/log/self')).items;
    expect(bob.map((item) => item.token_id)).toEqual([ids.bobToken, ids.bobToken]);
    expect(bob.find((item) => item.path === '/suno/submit/music')?.task_id).toBe(tasks.song);
  });

  it.skipIf(!available)('filters the log by token (own only), model, status, request id and time, and pages it', async () => {
    const alice = (await self('alice', '/api/log/self')).items;
    const total = async (query: string) => (await self('alice', `/api/log/self?${query}`)).total;
    expect(await total(`token_id=${ids.aliceB}`)).toBe(2);
    expect(await total(`token_id=${ids.aliceA}`)).toBe(3);
    // Bob's token is not Alice's: none of her rows, and none of his.
    expect(await total(`token_id=${ids.bobToken}`)).toBe(0);
    expect(await total('model=gpt-4o-mini')).toBe(3);
    expect(await total('status=499')).toBe(1);
    expect(await total(`request_id=${alice[0]?.request_id}`)).toBe(1);
    const bobsRequest = (await storedLog(ids.bob))[0]?.request_id;
    expect(await total(`request_id=${bobsRequest}`)).toBe(0);
    expect(await total(`start=${times.aliceSecondKey}&end=${times.video}`)).toBe(1);
    expect(await total(`start=${times.video}`)).toBe(2);
    // new-api's console spelling: unix seconds, both ends inclusive; 0 leaves an end open (new-api's GetUserLogs).
    const seconds = (ms: number) => ms / 1000;
    expect(await total(`start_timestamp=${seconds(times.aliceSecondKey)}&end_timestamp=${seconds(times.video) - 1}`)).toBe(1);
    expect(await total(`start_timestamp=${seconds(times.aliceSecondKey)}&end_timestamp=${seconds(times.video)}`), 'the end second is in').toBe(2);
    expect(await total(`start_timestamp=${seconds(times.video)}`)).toBe(2);
    expect(await total(`start_timestamp=${seconds(times.video) + 1}&end_timestamp=0`)).toBe(1);
    expect(await total(`start=${times.aliceSecondKey}&end_timestamp=${seconds(times.video) - 1}`), 'one end in each spelling').toBe(1);
    expect((await self('alice', `/api/log/self?start_timestamp=${seconds(times.video)}`)).items.map((item) => item.request_id)).toEqual(
      (await self('alice', `/api/log/self?start=${times.video}`)).items.map((item) => item.request_id),
    );
    // Whose rows and which channel are not a user's filters: ignored, still her own rows.
    expect(await total(`user_id=${ids.bob}`)).toBe(5);
    const paged = [];
    for (let page = 1; page <= 3; page += 1) {
      const data = await self('alice', `/api/log/self?p=${page}&page_size=2`);
      expect(data).toMatchObject({ total: 5, page, page_size: 2 });
      paged.push(...data.items);
    }
    expect(paged.map((item) => item.request_id)).toEqual(alice.map((item) => item.request_id));
  });

  it.skipIf(!available)('lists each user their own tasks of every kind, by public id and charge, never the upstream id', async () => {
    const alice = await self('alice', '/api/task/self');
    expect(alice.total).toBe(2);
    expect(alice.items.map((item) => item.task_id)).toEqual([tasks.imagine, tasks.video]);
    for (const item of alice.items) expect(Object.keys(item).sort()).toEqual(ownTaskFields);
    expect(alice.items[1]).toMatchObject({ kind: 'video', action: 'GENERATE', model: 'sora-2', token_id: ids.aliceA, quota: videoCharge, refunded: false, fail_reason: null, created_at: times.video, completed_at: null });
    expect(['SUBMITTED', 'QUEUED']).toContain(alice.items[1]?.status);
    expect(alice.items[0]).toMatchObject({ kind: 'mj', action: 'IMAGINE', model: 'mj_imagine', token_id: ids.aliceB, quota: Math.round(0.05 * quotaPerUnit), created_at: times.imagine });
    expect(JSON.stringify(alice)).not.toContain(tasks.videoUpstream);
    const bob = await self('bob', '/api/task/self');
    expect(bob.items.map((item) => item.task_id)).toEqual([tasks.song]);
    expect(bob.items[0]).toMatchObject({ kind: 'suno', action: 'MUSIC', model: 'suno_music', quota: Math.round(0.1 * quotaPerUnit) });
  });

  it.skipIf(!available)('filters tasks by public id (own only), status, kind and time, and pages them', async () => {
    const total = async (query: string) => (await self('alice', `/api/task/self?${query}`)).total;
    expect(await total(`task_id=${tasks.video}`)).toBe(1);
    expect(await total(`task_id=${tasks.song}`)).toBe(0);
    expect(await total('kind=video')).toBe(1);
    expect(await total('kind=mj')).toBe(1);
    expect(await total('kind=suno')).toBe(0);
    expect(await total('status=FAILURE')).toBe(0);
    const videoStatus = (await db().selectFrom('tasks').select('status').where('public_id', '=', tasks.video).executeTakeFirstOrThrow()).status;
    expect((await self('alice', `/api/task/self?status=${videoStatus.toUpperCase()}&kind=video`)).items.map((item) => item.task_id)).toEqual([tasks.video]);
    expect(await total(`start=${times.imagine}`)).toBe(1);
    expect(await total(`end=${times.imagine}`)).toBe(1);
    const second = await self('alice', '/api/task/self?p=2&page_size=1');
    expect(second).toMatchObject({ total: 2, page: 2, page_size: 1 });
    expect(second.items.map((item) => item.task_id)).toEqual([tasks.video]);
  });

  it.skipIf(!available)('shows a failed task refunded with its reason, and the refund row under the same task id', async () => {
    sora.advance(tasks.videoUpstream, { status: 'failed', error: { code: 'internal_error', message: `Render farm on fire (job ${tasks.videoUpstream}).` } });
    clock = times.refund;
    await gateway.gateway.services.taskEngine.pollOnce();
    await gateway.settled();
    const [video] = (await self('alice', `/api/task/self?task_id=${tasks.video}`)).items;
    expect(video).toMatchObject({ status: 'FAILURE', quota: videoCharge, refunded: true, completed_at: times.refund });
    // The upstream's message quotes its own id: shown as the public one.
    expect((await db().selectFrom('tasks').select('fail_reason').where('public_id', '=', tasks.video).executeTakeFirstOrThrow()).fail_reason).toContain(tasks.videoUpstream);
    expect(video?.fail_reason).toContain(tasks.video);
    expect(video?.fail_reason).toContain('Render farm on fire');
    expect(video?.fail_reason).not.toContain(tasks.videoUpstream);
    expect((await self('alice', '/api/task/self?status=failure')).total).toBe(1);
    const rows = (await self('alice', `/api/log/self?start=${times.refund}`)).items;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ style: 'task-refund', quota: -videoCharge, task_id: tasks.video, usage_source: 'refund' });
    expect(JSON.stringify(rows)).not.toContain(tasks.videoUpstream);
    expect((await self('bob', '/api/log/self')).total).toBe(2);
  });
});
