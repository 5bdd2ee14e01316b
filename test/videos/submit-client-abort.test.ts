/**
 * A client that leaves while the gateway reads the upstream's 2xx submit answer (the upstream took the
 * job, and bills the operator for it: new-api #7062) on every task kind — OpenAI Videos (`/v1/videos`,
 * the unified `/v1/video/generations`, a remix), Kling, Tencent VOD, Suno, Midjourney — on every
 * database. Each fake sits behind test/fakes/held-answer-proxy.ts, which holds its submit answer
 * half-sent until the test, having aborted the client, releases or cuts it. Charges are computed here
 * from docs/behaviour.md ("Video", "Suno", "Midjourney"), never read from the gateway.
 */
import type { IncomingMessage } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeKlingUpstream, type FakeKlingUpstream } from '../fakes/fake-kling-upstream.js';
import { startFakeMidjourneyUpstream, type FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startFakeSunoUpstream, type FakeSunoUpstream } from '../fakes/fake-suno-upstream.js';
import { startFakeTencentVodUpstream, type FakeTencentVodUpstream } from '../fakes/fake-tencent-vod-upstream.js';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startHeldAnswerProxy, type HeldAnswer, type HeldAnswerProxy } from '../fakes/held-answer-proxy.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { allDialects } from '../support/test-databases.js';

const clientKey = `sk-${'q'.repeat(48)}`;
const quotaPerUnit = 500_000;
const kling = { accessKey: 'AKleave00000000000000000', secretKey: 'SKleave00000000000000000' };
const vod = { subAppId: 1_500_000_777, secretId: 'AKIDleave000000000000000000000000000', secretKey: 'vodLeaveKey000000000000000000000000' };
/** Site currency per second of clip, or per task. */
const prices = { 'sora-2': { per_second: 0.1 }, 'kling-v2-6': { per_second: 0.14 }, 'Kling-2.6': { per_second: 0.5 }, suno_music: { per_call: 0.1 }, mj_imagine: { per_call: 0.05 } } as const;
const perSecond = (model: 'sora-2' | 'kling-v2-6' | 'Kling-2.6', seconds: number) => Math.round(prices[model].per_second * seconds * quotaPerUnit);
const perCall = (model: 'suno_music' | 'mj_imagine') => Math.round(prices[model].per_call * quotaPerUnit);
/** USAGE_WAIT_SECONDS in this suite: how long an answer is read on after its client left. */
const usageWaitSeconds = 1;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(allDialects)('a task submit whose client leaves mid-answer, on $dialect', ({ dialect, available }) => {
  let gateway: TestGateway;
  let sora: FakeVideoUpstream;
  let klingUp: FakeKlingUpstream;
  let vodUp: FakeTencentVodUpstream;
  let suno: FakeSunoUpstream;
  let mj: FakeMidjourneyUpstream;
  const proxies: Record<string, HeldAnswerProxy> = {};
  let clock = Date.now();
  /** Only the submit a test leaves is held; the others (a remix's origin, polls) pass. */
  let holding = false;
  const post = (request: IncomingMessage, test: (path: string) => boolean) => holding && request.method === 'POST' && test(request.url ?? '');

  beforeAll(async () => {
    if (!available) return;
    [sora, klingUp, vodUp, suno, mj] = await Promise.all([
      startFakeVideoUpstream({ expectedKeys: ['sk-up-sora'] }),
      startFakeKlingUpstream({ ...kling, now: () => clock }),
      startFakeTencentVodUpstream({ secrets: { [vod.secretId]: vod.secretKey }, subAppId: vod.subAppId, now: () => clock }),
      startFakeSunoUpstream({ expectedKeys: ['sk-suno-up'] }),
      startFakeMidjourneyUpstream({ expectedKeys: ['mj-secret-up'] }),
    ]);
    proxies.sora = await startHeldAnswerProxy(sora.url, (request) => post(request, (path) => path === '/v1/videos' || path.endsWith('/remix')));
    proxies.kling = await startHeldAnswerProxy(klingUp.url, (request) => post(request, (path) => path.startsWith('/v1/videos/')));
    proxies.vod = await startHeldAnswerProxy(vodUp.url, (request) => post(request, () => request.headers['x-tc-action'] === 'CreateAigcVideoTask'));
    proxies.suno = await startHeldAnswerProxy(suno.url, (request) => post(request, (path) => path.startsWith('/suno/submit/')));
    proxies.mj = await startHeldAnswerProxy(mj.url, (request) => post(request, (path) => path.startsWith('/mj/submit/')));
    const channel = { groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: {} };
    gateway = await startTestGateway({
      dialect,
      now: () => clock,
      env: { TASK_POLL_INTERVAL: '0', USAGE_WAIT_SECONDS: String(usageWaitSeconds) },
      config: {
        retry_times: 0,
        prices,
        channels: [
          { ...channel, name: 'sora', type: 'openai', base_url: proxies.sora.url, key: 'sk-up-sora', models: ['sora-2'] },
          { ...channel, name: 'kling', type: 'kling', base_url: proxies.kling.url, key: `${kling.accessKey}|${kling.secretKey}`, models: ['kling-v2-6'] },
          { ...channel, name: 'vod', type: 'tencent-vod', base_url: proxies.vod.url, key: `${vod.subAppId}|${vod.secretId}|${vod.secretKey}`, models: ['Kling-2.6'] },
          { ...channel, name: 'suno', type: 'suno', base_url: proxies.suno.url, key: 'sk-suno-up', models: ['suno_music'] },
          { ...channel, name: 'mj', type: 'midjourney', base_url: proxies.mj.url, key: 'mj-secret-up', models: ['mj_imagine'] },
        ],
        users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
        tokens: [{ name: 'k', user: 'u', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
      },
    });
  });
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await Promise.all([...Object.values(proxies).map((proxy) => proxy.close()), sora.close(), klingUp.close(), vodUp.close(), suno.close(), mj.close()]);
  });

  const { used, poll, call } = taskSuiteClient({ gateway: () => gateway, key: clientKey, tokenName: 'k', tick: () => (clock += 1) });
  const db = () => gateway.gateway.services.database.db;
  const openai = () => new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const postJson = (path: string, body: unknown, signal: AbortSignal) =>
    fetch(`${gateway.url}${path}`, { method: 'POST', signal, headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const channelUsed = async (name: string) => Number((await db().selectFrom('channels').select('used_quota').where('name', '=', name).executeTakeFirstOrThrow()).used_quota);
  const lastTaskId = async () => Number((await db().selectFrom('tasks').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst())?.id ?? 0);
  const lastLog = () => db().selectFrom('logs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();

  /** A completed sora-2 4 s video of the caller's, made with its client staying: a remix's origin. */
  async function completedVideo(): Promise<string> {
    const video = await openai().videos.create({ model: 'sora-2', prompt: 'origin', seconds: '4' });
    const row = await db().selectFrom('tasks').select('upstream_id').where('public_id', '=', video.id).executeTakeFirstOrThrow();
    sora.advance(row.upstream_id as string, { status: 'completed', progress: 100 });
    await poll();
    return video.id;
  }

  interface TaskKind {
    name: string;
    channel: string;
    proxy: () => HeldAnswerProxy;
    /** What the task costs had the client stayed. */
    charge: number;
    /** Runs before the submit (a remix's origin); gives the submit what it needs. */
    prepare?: () => Promise<string>;
    submit(signal: AbortSignal, prepared: string | undefined): Promise<unknown>;
    /** The upstream's id as the row keeps it, read from its answer. */
    upstreamIdIn(answer: string): string;
    /** The upstream fails the task. */
    fail(upstreamId: string): void;
  }

  const kinds: TaskKind[] = [
    {
      name: 'OpenAI videos.create',
      channel: 'sora',
      proxy: () => proxies.sora as HeldAnswerProxy,
      charge: perSecond('sora-2', 4),
      submit: (signal) => openai().videos.create({ model: 'sora-2', prompt: 'left', seconds: '4' }, { signal }),
      upstreamIdIn: (answer) => (JSON.parse(answer) as { id: string }).id,
      fail: (id) => sora.advance(id, { status: 'failed', error: { code: 'internal_error', message: 'Render farm on fire.' } }),
    },
    {
      name: 'the unified /v1/video/generations',
      channel: 'sora',
      proxy: () => proxies.sora as HeldAnswerProxy,
      charge: perSecond('sora-2', 8),
      submit: (signal) => postJson('/v1/video/generations', { model: 'sora-2', prompt: 'left', seconds: 8 }, signal).then((response) => response.json()),
      upstreamIdIn: (answer) => (JSON.parse(answer) as { id: string }).id,
      fail: (id) => sora.advance(id, { status: 'failed', error: { code: 'internal_error', message: 'Render farm on fire.' } }),
    },
    {
      name: 'OpenAI videos.remix',
      channel: 'sora',
      proxy: () => proxies.sora as HeldAnswerProxy,
      // A remix is priced as its origin: sora-2, 4 s.
      charge: perSecond('sora-2', 4),
      prepare: completedVideo,
      submit: (signal, origin) => openai().videos.remix(origin as string, { prompt: 'at night' }, { signal }),
      upstreamIdIn: (answer) => (JSON.parse(answer) as { id: string }).id,
      fail: (id) => sora.advance(id, { status: 'failed', error: { code: 'internal_error', message: 'Render farm on fire.' } }),
    },
    {
      name: 'Kling text2video',
      channel: 'kling',
      proxy: () => proxies.kling as HeldAnswerProxy,
      charge: perSecond('kling-v2-6', 5),
      submit: (signal) => postJson('/kling/v1/videos/text2video', { model_name: 'kling-v2-6', prompt: 'left', duration: '5' }, signal).then((response) => response.json()),
      upstreamIdIn: (answer) => `text2video/${(JSON.parse(answer) as { data: { task_id: string } }).data.task_id}`,
      fail: (id) => klingUp.advance(id.slice('text2video/'.length), { status: 'failed', statusMsg: 'Risk control.' }),
    },
    {
      name: 'Tencent VOD',
      channel: 'vod',
      proxy: () => proxies.vod as HeldAnswerProxy,
      // VOD's default length: 5 s.
      charge: perSecond('Kling-2.6', 5),
      submit: (signal) => postJson('/v1/video/generations', { model: 'Kling-2.6', prompt: 'left' }, signal).then((response) => response.json()),
      upstreamIdIn: (answer) => (JSON.parse(answer) as { Response: { TaskId: string } }).Response.TaskId,
      fail: (id) => vodUp.advance(id, { status: 'ABORTED' }),
    },
    {
      name: 'Suno music',
      channel: 'suno',
      proxy: () => proxies.suno as HeldAnswerProxy,
      charge: perCall('suno_music'),
      submit: (signal) => postJson('/suno/submit/music', { prompt: '[Verse] left', tags: 'lofi', mv: 'chirp-v4' }, signal).then((response) => response.json()),
      upstreamIdIn: (answer) => (JSON.parse(answer) as { data: string }).data,
      fail: (id) => suno.advance(id, { status: 'FAILURE', failReason: 'Out of credits.' }),
    },
    {
      name: 'Midjourney imagine',
      channel: 'mj',
      proxy: () => proxies.mj as HeldAnswerProxy,
      charge: perCall('mj_imagine'),
      submit: (signal) => postJson('/mj/submit/imagine', { prompt: 'a left cat' }, signal).then((response) => response.json()),
      upstreamIdIn: (answer) => String((JSON.parse(answer) as { result: string | number }).result),
      fail: (id) => mj.advance(id, { status: 'FAILURE', failReason: 'Banned prompt.' }),
    },
  ];

  /**
   * Submits, waits until the upstream's 2xx and half its answer reached the gateway, aborts the client
   * (its SDK or fetch raises), lets the gateway see it gone, then ends the held answer as `then` says
   * ('wait-out': never, so the gateway gives up after USAGE_WAIT_SECONDS) and waits for the settle.
   */
  async function leaveMidAnswer(kind: TaskKind, prepared: string | undefined, then: 'release' | 'cut' | 'wait-out'): Promise<HeldAnswer> {
    holding = true;
    const controller = new AbortController();
    const outcome = kind.submit(controller.signal, prepared).then(
      () => 'answered',
      () => 'aborted',
    );
    const held = await kind.proxy().nextHeld();
    holding = false;
    expect(held.status).toBe(200);
    await delay(50);
    controller.abort();
    expect(await outcome).toBe('aborted');
    // The gateway sees its client gone (a socket close: a few ms) well before the rest of the answer comes,
    // and well within the wait (USAGE_WAIT_SECONDS = 1).
    await delay(250);
    if (then === 'release') held.release();
    else if (then === 'cut') held.cut();
    await gateway.settled();
    return held;
  }

  it.skipIf(!available).each(kinds)('$name: charged once as if the client stayed, the task recorded, logged by its ids, polled and refunded when it fails', async (kind) => {
    const prepared = await kind.prepare?.();
    const before = await used();
    const channelBefore = await channelUsed(kind.channel);
    const taskBefore = await lastTaskId();
    const held = await leaveMidAnswer(kind, prepared, 'release');
    const upstreamId = kind.upstreamIdIn(held.body);

    expect((await used()) - before).toBe(kind.charge);
    expect((await channelUsed(kind.channel)) - channelBefore).toBe(kind.charge);
    const task = await db().selectFrom('tasks').selectAll().where('id', '>', taskBefore).orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(task).toMatchObject({ upstream_id: upstreamId, quota: kind.charge, refunded: 0 });
    expect(['submitted', 'queued']).toContain(task.status);
    const logs = await db().selectFrom('logs').selectAll().where('request_id', '=', task.request_id).execute();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ status: 499, quota: kind.charge });
    // The client never got the id: the log row is where the task is found, by its public and its upstream id.
    expect(logs[0]?.error).toContain(task.public_id);
    expect(logs[0]?.error).toContain(upstreamId);

    kind.fail(upstreamId);
    await poll();
    expect(await db().selectFrom('tasks').select(['status', 'refunded']).where('id', '=', task.id).executeTakeFirstOrThrow()).toEqual({ status: 'failure', refunded: 1 });
    expect(await used()).toBe(before);
    expect(await channelUsed(kind.channel)).toBe(channelBefore);
  });

  it.skipIf(!available).each(kinds)('$name: an accepted answer the upstream cuts after the client left names no task: nothing charged, no task, the log says why', async (kind) => {
    const prepared = await kind.prepare?.();
    const before = await used();
    const channelBefore = await channelUsed(kind.channel);
    const taskBefore = await lastTaskId();
    await leaveMidAnswer(kind, prepared, 'cut');
    expect((await used()) - before).toBe(0);
    expect((await channelUsed(kind.channel)) - channelBefore).toBe(0);
    expect(await db().selectFrom('tasks').select('id').where('id', '>', taskBefore).execute()).toEqual([]);
    const log = await lastLog();
    expect(log).toMatchObject({ status: 499, quota: 0 });
    expect(log.error).toContain('named no task');
    // Nothing is left for the orphan sweep to refund later either.
    clock += 16 * 60_000;
    await poll();
    expect((await used()) - before).toBe(0);
  });

  it.skipIf(!available)(`reads on for at most USAGE_WAIT_SECONDS: an answer still coming then is given up, at no charge and with no task`, async () => {
    const [kind] = kinds as [TaskKind];
    const before = await used();
    const taskBefore = await lastTaskId();
    const started = Date.now();
    await leaveMidAnswer(kind, undefined, 'wait-out');
    expect(Date.now() - started).toBeGreaterThanOrEqual(usageWaitSeconds * 1000);
    expect((await used()) - before).toBe(0);
    expect(await db().selectFrom('tasks').select('id').where('id', '>', taskBefore).execute()).toEqual([]);
    expect((await lastLog()).error).toContain('named no task');
  });

  it.skipIf(!available)('a client that stays is answered the same task at the same charge (the control)', async () => {
    const before = await used();
    const response = await call('/suno/submit/music', { prompt: '[Verse] stayed', tags: 'lofi', mv: 'chirp-v4' });
    expect(response.status).toBe(200);
    expect((await used()) - before).toBe(perCall('suno_music'));
  });
});
