/**
 * `GET /api/mj/self` (new-api's console list of a user's own Midjourney tasks) on every database: two users
 * submit through the fake Midjourney-proxy with their API keys — an imagine that succeeds, its upscale, an
 * imagine that fails and is refunded, the other user's imagine — and each logs in to the console and reads
 * exactly their own Midjourney tasks in new-api's record shape, by public id (never the proxy's ids, the
 * channel or its key), through new-api's filters (`mj_id`, `start_timestamp`, `end_timestamp` in ms, both
 * inclusive) and pages, as new-api's console asks for them (trailing slash, empty `mj_id`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callGateway, logIn } from '../admin/admin-client.js';
import { startFakeMidjourneyUpstream, type FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startTaskGateway } from '../support/start-task-gateway.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { allDialects } from '../support/test-databases.js';
import { midjourneyClient } from '../midjourney/midjourney-client.js';

const keys = { painter: `sk-${'m'.repeat(48)}`, other: `sk-${'n'.repeat(48)}` };
const channelKey = 'mj-secret-self';
const quotaPerUnit = 500_000;
const prices = { mj_imagine: 0.05, mj_upscale: 0.02 };
/** When each task is submitted (the gateway's clock): the time filters cut between them. */
const times = { imagine: 1_800_000_000_000, other: 1_800_000_010_000, upscale: 1_800_000_020_000, failed: 1_800_000_030_000 };
/** Exactly the fields of a record (docs/behaviour.md "Authentication", `GET /api/mj/self`). */
const recordFields = [
  'id', 'mj_id', 'action', 'prompt', 'prompt_en', 'description', 'state', 'status', 'progress', 'image_url', 'video_url', 'video_urls', 'fail_reason',
  'submit_time', 'start_time', 'finish_time', 'quota', 'buttons', 'properties',
].sort();

describe.each(allDialects)('a user reads their own Midjourney tasks, on $dialect', ({ dialect, available }) => {
  let mj: FakeMidjourneyUpstream;
  let gateway: TestGateway;
  let clock = times.imagine;
  const sessions = { painter: '', other: '' };
  const tasks = { imagine: '', upscale: '', failed: '', other: '', song: '' };
  const upstream = { imagine: '', upscale: '', failed: '', other: '' };

  const client = taskSuiteClient({ gateway: () => gateway, key: keys.painter, tokenName: 'painter-key', tick: () => (clock += 1) });
  const { submit, fetchTask } = midjourneyClient(client, () => [mj]);
  const self = async (user: 'painter' | 'other', path: string) => {
    const answer = await callGateway(gateway, 'GET', path, { headers: { cookie: sessions[user] } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.success).toBe(true);
    return { data: answer.body.data as { items: Record<string, any>[]; total: number; page: number; page_size: number }, text: answer.text };
  };
  const ids = async (user: 'painter' | 'other', query = '') => (await self(user, `/api/mj/self?${query}`)).data.items.map((item) => item.mj_id);

  beforeAll(async () => {
    if (!available) return;
    mj = await startFakeMidjourneyUpstream({ expectedKeys: [channelKey] });
    gateway = await startTaskGateway({
      type: 'midjourney',
      dialect,
      now: () => clock,
      prices,
      channels: [{ name: 'mj', base_url: mj.url, key: channelKey, priority: 0 }],
      users: { painter: { key: keys.painter, password: 'painter-password' }, other: { key: keys.other, password: 'other-password' } },
    });
    sessions.painter = await logIn(gateway, 'painter', 'painter-password');
    sessions.other = await logIn(gateway, 'other', 'other-password');

    tasks.imagine = (await submit('/mj/submit/imagine', { prompt: 'a lighthouse', state: 'order-7' })).result as string;
    upstream.imagine = await client.upstreamIdOf(tasks.imagine);
    mj.advance(upstream.imagine, { status: 'IN_PROGRESS', progress: '40%' });
    await client.poll();
    mj.advance(upstream.imagine, { status: 'SUCCESS' });
    await client.poll();
    clock = times.other;
    tasks.other = (await submit('/mj/submit/imagine', { prompt: 'the other one' }, keys.other)).result as string;
    upstream.other = await client.upstreamIdOf(tasks.other);
    clock = times.upscale;
    tasks.upscale = (await submit('/mj/submit/change', { taskId: tasks.imagine, action: 'UPSCALE', index: 1 })).result as string;
    upstream.upscale = await client.upstreamIdOf(tasks.upscale);
    clock = times.failed;
    tasks.failed = (await submit('/mj/submit/imagine', { prompt: 'a banned thing' })).result as string;
    upstream.failed = await client.upstreamIdOf(tasks.failed);
    mj.advance(upstream.failed, { status: 'FAILURE', failReason: `Job ${upstream.failed} was refused by the moderator` });
    await client.poll();
    // A task of another kind of the painter's: not a Midjourney task, not in this list.
    const user = await gateway.gateway.services.database.db.selectFrom('users').select('id').where('username', '=', 'painter').executeTakeFirstOrThrow();
    const token = await gateway.gateway.services.database.db.selectFrom('tokens').select('id').where('name', '=', 'painter-key').executeTakeFirstOrThrow();
    tasks.song = `task_${'S'.repeat(32)}`;
    await gateway.gateway.services.repositories.tasks.insert({ publicId: tasks.song, kind: 'suno', requestId: 'song-request', userId: user.id, tokenId: token.id, model: 'suno_music', properties: { action: 'MUSIC' } }, clock);
  });
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await mj.close();
  });

  it.skipIf(!available)('lists each user exactly their own Midjourney tasks, newest first, in new-api\'s record shape', async () => {
    const { data, text } = await self('painter', '/api/mj/self');
    expect(data).toMatchObject({ total: 3, page: 1, page_size: 20 });
    expect(data.items.map((item) => item.mj_id)).toEqual([tasks.failed, tasks.upscale, tasks.imagine]);
    for (const item of data.items) {
      expect(Object.keys(item).sort()).toEqual(recordFields);
      expect(item.id).toBe(item.mj_id);
    }
    // Never the proxy's ids, the channel's key or address, or the proxy's accounts. The buttons are the
    // fetch's (their customIds, the proxy's message hashes, are what `/mj/submit/action` takes back).
    const shown = JSON.stringify(data.items.map(({ buttons: _buttons, ...rest }) => rest));
    for (const secret of [...Object.values(upstream), channelKey, mj.url, 'discordInstanceId', 'instance-secret', 'messageHash']) expect(shown).not.toContain(secret);
    for (const secret of [channelKey, mj.url, 'discordInstanceId']) expect(text).not.toContain(secret);
    expect(text).not.toContain(tasks.song);

    const other = await self('other', '/api/mj/self');
    expect(other.data.total).toBe(1);
    expect(other.data.items.map((item) => item.mj_id)).toEqual([tasks.other]);
    expect(other.data.items[0]).toMatchObject({ action: 'IMAGINE', prompt: 'the other one', status: 'SUBMITTED', progress: '0%', image_url: '', fail_reason: '', submit_time: times.other, finish_time: 0 });
  });

  it.skipIf(!available)('shows a finished imagine as its fetch does: prompt, status, times, charge, the image through the gateway, buttons', async () => {
    const { data } = await self('painter', `/api/mj/self?mj_id=${tasks.imagine}`);
    const [record] = data.items;
    const fetched = await fetchTask(tasks.imagine);
    expect(record).toMatchObject({
      action: 'IMAGINE',
      prompt: 'a lighthouse',
      prompt_en: fetched.promptEn,
      description: fetched.description,
      start_time: fetched.startTime,
      state: 'order-7',
      status: 'SUCCESS',
      progress: '100%',
      image_url: `/mj/image/${tasks.imagine}`,
      fail_reason: '',
      submit_time: times.imagine,
      finish_time: fetched.finishTime,
      quota: prices.mj_imagine * quotaPerUnit,
    });
    expect(record?.start_time).toBeGreaterThan(0);
    expect(record?.finish_time).toBeGreaterThan(times.imagine);
    // Buttons and properties as new-api keeps them, JSON text: the fetch's buttons, only the visible properties.
    expect(JSON.parse(record?.buttons as string)).toEqual(fetched.buttons);
    expect((JSON.parse(record?.buttons as string) as unknown[]).length).toBeGreaterThan(0);
    expect(JSON.parse(record?.properties as string)).toEqual(fetched.properties);
    // The image link is the gateway's own, served without a key (a console `<img>`): the proxy's image.
    const image = await fetch(`${gateway.url}${record?.image_url}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toContain('image/png');
    expect((await image.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it.skipIf(!available)('shows the proxy\'s ids in its texts as public ones, and a failure at 100% with its reason', async () => {
    const records = (await self('painter', '/api/mj/self')).data.items;
    const upscale = records.find((item) => item.mj_id === tasks.upscale);
    expect(upscale).toMatchObject({ action: 'UPSCALE', status: 'SUBMITTED', quota: prices.mj_upscale * quotaPerUnit, submit_time: times.upscale });
    expect(upscale?.description).toContain(tasks.imagine);
    const failed = records.find((item) => item.mj_id === tasks.failed);
    expect(failed).toMatchObject({ action: 'IMAGINE', status: 'FAILURE', progress: '100%', image_url: '', buttons: '[]', quota: prices.mj_imagine * quotaPerUnit });
    expect(failed?.fail_reason).toBe(`Job ${tasks.failed} was refused by the moderator`);
  });

  it.skipIf(!available)('filters by mj_id (own only) and submit time, both ends inclusive, and pages', async () => {
    expect(await ids('painter', `mj_id=${tasks.upscale}`)).toEqual([tasks.upscale]);
    // Another user's task is not the painter's, whoever names it.
    expect(await ids('painter', `mj_id=${tasks.other}`)).toEqual([]);
    expect(await ids('other', `mj_id=${tasks.imagine}`)).toEqual([]);
    expect(await ids('painter', `start_timestamp=${times.upscale}&end_timestamp=${times.upscale}`)).toEqual([tasks.upscale]);
    expect(await ids('painter', `start_timestamp=${times.upscale + 1}`)).toEqual([tasks.failed]);
    expect(await ids('painter', `end_timestamp=${times.upscale - 1}`)).toEqual([tasks.imagine]);
    expect(await ids('other', `start_timestamp=${times.other}&end_timestamp=${times.other}`)).toEqual([tasks.other]);
    const paged = [];
    for (let page = 1; page <= 3; page += 1) {
      const { data } = await self('painter', `/api/mj/self?p=${page}&page_size=1`);
      expect(data).toMatchObject({ total: 3, page, page_size: 1 });
      paged.push(...data.items.map((item) => item.mj_id));
    }
    expect(paged).toEqual([tasks.failed, tasks.upscale, tasks.imagine]);
    // As new-api's console asks: the trailing slash, an empty mj_id, a 30-day window in ms.
    const console = await self('painter', `/api/mj/self/?p=1&page_size=10&mj_id=&start_timestamp=${times.imagine - 30 * 86_400_000}&end_timestamp=${times.failed + 3_600_000}`);
    expect(console.data.items.map((item) => item.mj_id)).toEqual([tasks.failed, tasks.upscale, tasks.imagine]);
  });
});
