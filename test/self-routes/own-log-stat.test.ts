/**
 * `GET /api/log/self/stat` (new-api's user `Stat`) on every database: two users make requests with their
 * API keys through the real gateway — chats with the openai SDK, a Sora video that fails and is refunded —
 * and each reads their own `quota` (net of the refund, over `/api/log/self`'s filters) and `rpm`/`tpm` (the
 * requests and input + output tokens of the last 60 s before the gateway's clock, whatever the time
 * filters). The figures are checked against the SDK's own usage and the rows the gateway wrote.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { callGateway } from '../admin/admin-client.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { channelDefaults, keys, logInTwoUsers, twoUsersConfig, videoCharge, type TwoUsers } from './two-users-fixture.js';

/** The gateway's clock at each step: the early requests are long out of the last minute by the late ones. */
const times = { early: 1_800_000_000_000, video: 1_800_000_001_000, refund: 1_800_000_002_000, late: 1_800_000_600_000 };

interface Stat {
  quota: number;
  rpm: number;
  tpm: number;
}

describe.each(allDialects)('a user reads their own log totals, on $dialect', ({ dialect, available }) => {
  let gateway: TestGateway;
  let chat: FakeOpenaiUpstream;
  let sora: FakeVideoUpstream;
  let clock = times.early;
  let sessions: TwoUsers['sessions'];
  let ids: TwoUsers['ids'];
  /** What the SDK was told each late chat used (prompt + completion tokens), by user. */
  const lateTokens = { alice: [] as number[], bob: [] as number[] };

  const db = () => gateway.gateway.services.database.db;
  const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  /** One chat whose upstream reports these token counts; answers the usage the SDK read. */
  const chatWith = async (key: string, promptTokens: number, completionTokens: number) => {
    chat.setOptions({ promptTokens, completionTokens });
    const answer = await openai(key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    return { tokens: (answer.usage?.prompt_tokens ?? 0) + (answer.usage?.completion_tokens ?? 0) };
  };
  const stat = async (user: 'alice' | 'bob', query = ''): Promise<Stat> => {
    const answer = await callGateway(gateway, 'GET', `/api/log/self/stat${query === '' ? '' : `?${query}`}`, { headers: { cookie: sessions[user] } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.success).toBe(true);
    expect(Object.keys(answer.body.data).sort()).toEqual(['quota', 'rpm', 'tpm']);
    return answer.body.data as Stat;
  };
  const storedLog = async (userId: number) => db().selectFrom('logs').selectAll().where('user_id', '=', userId).execute();
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

  beforeAll(async () => {
    if (!available) return;
    [chat, sora] = await Promise.all([startFakeOpenaiUpstream(), startFakeVideoUpstream({ expectedKeys: ['sk-up-sora'] })]);
    gateway = await startTestGateway({
      dialect,
      now: () => clock,
      env: { TASK_POLL_INTERVAL: '0' },
      config: {
        retry_times: 0,
        prices: { 'gpt-4o-mini': { input: 1, output: 2 }, 'sora-2': { per_second: 0.1 } },
        channels: [
          { ...channelDefaults, name: 'chat', type: 'openai', base_url: chat.url, key: 'sk-up-chat', models: ['gpt-4o-mini'] },
          { ...channelDefaults, name: 'sora', type: 'openai', base_url: sora.url, key: 'sk-up-sora', models: ['sora-2'] },
        ],
        ...twoUsersConfig,
      },
    });
    ({ ids, sessions } = await logInTwoUsers(gateway));

    // Early: a chat each, and Alice's video, which fails and is refunded.
    await chatWith(keys.aliceA, 100, 10);
    await chatWith(keys.bob, 300, 30);
    clock = times.video;
    const video = await openai(keys.aliceA).videos.create({ model: 'sora-2', prompt: 'a cat', seconds: '4' });
    await gateway.settled();
    const task = await db().selectFrom('tasks').select('upstream_id').where('public_id', '=', video.id).executeTakeFirstOrThrow();
    sora.advance(task.upstream_id ?? '', { status: 'failed', error: { code: 'internal_error', message: 'Render farm on fire.' } });
    clock = times.refund;
    await gateway.gateway.services.taskEngine.pollOnce();
    await gateway.settled();
    // Late (ten minutes on): two chats for Alice, one on each key, and one for Bob.
    clock = times.late;
    lateTokens.alice.push((await chatWith(keys.aliceA, 1_000, 200)).tokens);
    lateTokens.alice.push((await chatWith(keys.aliceB, 2_000, 400)).tokens);
    lateTokens.bob.push((await chatWith(keys.bob, 5_000, 700)).tokens);
    await gateway.settled();
  });
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await Promise.all([chat.close(), sora.close()]);
  });

  it.skipIf(!available)('gives each user their own quota net of a refunded task, and the last minute\'s requests and tokens', async () => {
    clock = times.late + 30_000;
    const alice = await storedLog(ids.alice);
    // The video was charged and given back: two rows, net nothing.
    expect(alice.filter((row) => row.model === 'sora-2').map((row) => row.quota).sort((a, b) => a - b)).toEqual([-videoCharge, videoCharge]);
    const aliceChats = alice.filter((row) => row.model === 'gpt-4o-mini');
    expect(aliceChats).toHaveLength(3);
    expect(aliceChats.every((row) => row.quota > 0)).toBe(true);
    expect(await stat('alice')).toEqual({ quota: sum(aliceChats.map((row) => row.quota)), rpm: 2, tpm: 1_200 + 2_400 });
    expect(sum(lateTokens.alice)).toBe(3_600);

    const bob = await storedLog(ids.bob);
    expect(bob).toHaveLength(2);
    expect(await stat('bob')).toEqual({ quota: sum(bob.map((row) => row.quota)), rpm: 1, tpm: sum(lateTokens.bob) });
    expect(sum(lateTokens.bob)).toBe(5_700);
  });

  it.skipIf(!available)('applies the log filters: quota over all of them, rpm and tpm over all but the time bounds', async () => {
    clock = times.late + 30_000;
    const alice = await storedLog(ids.alice);
    const quotaOf = (rows: typeof alice) => sum(rows.map((row) => row.quota));
    const late = alice.filter((row) => row.created_at >= times.late);
    const onB = alice.filter((row) => row.token_id === ids.aliceB);
    expect(onB).toHaveLength(1);
    expect(await stat('alice', `token_id=${ids.aliceB}`)).toEqual({ quota: quotaOf(onB), rpm: 1, tpm: 2_400 });
    // Bob's token is not Alice's: none of her rows.
    expect(await stat('alice', `token_id=${ids.bobToken}`)).toEqual({ quota: 0, rpm: 0, tpm: 0 });
    expect(await stat('alice', 'model=sora-2')).toEqual({ quota: 0, rpm: 0, tpm: 0 });
    expect(await stat('alice', 'model=gpt-4o-mini')).toMatchObject({ rpm: 2, tpm: 3_600 });
    expect(await stat('alice', `start=${times.late}`)).toEqual({ quota: quotaOf(late), rpm: 2, tpm: 3_600 });
    // The time filters bound the quota, not the current minute's figures (new-api's rpm and tpm are always now's).
    expect(await stat('alice', `end=${times.late}`)).toEqual({ quota: quotaOf(alice) - quotaOf(late), rpm: 2, tpm: 3_600 });
    // new-api's console sends its range in unix seconds, both ends inclusive, as start_timestamp / end_timestamp.
    expect(await stat('alice', `start_timestamp=${times.late / 1000}`)).toEqual({ quota: quotaOf(late), rpm: 2, tpm: 3_600 });
    expect(await stat('alice', `end_timestamp=${times.late / 1000 - 1}`)).toEqual({ quota: quotaOf(alice) - quotaOf(late), rpm: 2, tpm: 3_600 });
    expect(await stat('alice', `start_timestamp=${times.early / 1000}&end_timestamp=${times.late / 1000}`)).toEqual({ quota: quotaOf(alice), rpm: 2, tpm: 3_600 });
    expect(await stat('alice', `start_timestamp=0&end_timestamp=0`), 'new-api: 0 is no bound').toEqual(await stat('alice'));
    expect(await stat('alice', `request_id=${onB[0]?.request_id}`)).toEqual({ quota: quotaOf(onB), rpm: 1, tpm: 2_400 });
    const bobsRequest = (await storedLog(ids.bob))[0]?.request_id;
    expect(await stat('alice', `request_id=${bobsRequest}`)).toEqual({ quota: 0, rpm: 0, tpm: 0 });
    expect(await stat('alice', 'status=499')).toEqual({ quota: 0, rpm: 0, tpm: 0 });
    expect(await stat('alice', 'status=200')).toMatchObject({ rpm: 2, tpm: 3_600 });
    // Whose rows is not a user's filter: still her own.
    expect(await stat('alice', `user_id=${ids.bob}`)).toEqual(await stat('alice'));
  });

  it.skipIf(!available)('counts in rpm and tpm only the rows of the last 60 s before now', async () => {
    const alice = await storedLog(ids.alice);
    const quota = sum(alice.filter((row) => row.model === 'gpt-4o-mini').map((row) => row.quota));
    clock = times.late + 60_000;
    expect(await stat('alice')).toEqual({ quota, rpm: 2, tpm: 3_600 });
    clock = times.late + 60_001;
    expect(await stat('alice')).toEqual({ quota, rpm: 0, tpm: 0 });
    // Ten minutes back the early ones were the last minute's: the chat and the video (its refund row is not a request).
    const submit = alice.find((row) => row.model === 'sora-2' && row.quota > 0);
    clock = times.early + 30_000;
    expect(await stat('alice')).toEqual({ quota, rpm: 2, tpm: 110 + Number(submit?.input_tokens) + Number(submit?.output_tokens) });
  });
});
