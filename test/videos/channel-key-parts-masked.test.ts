/**
 * From the authorization red team: a channel key of several `|`-joined parts (Kling `AccessKey|SecretKey`,
 * Tencent VOD `SubAppId|SecretId|SecretKey`) is masked part by part. An upstream quotes the one part it was
 * sent — the AccessKey a Kling JWT names, the SecretId of a TC3 signature — never the joined key, and the
 * gateway searched for the joined key alone, so a lone part reached the client, the task's failure reason
 * and the log rows in clear.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeKlingUpstream, type FakeKlingUpstream } from '../fakes/fake-kling-upstream.js';
import { startFakeTencentVodUpstream, type FakeTencentVodUpstream } from '../fakes/fake-tencent-vod-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { preferredDialect } from './videos-fixture.js';

const accessKey = 'AKklingParts000000000000';
const klingSecret = 'SKklingParts111111111111';
const subAppId = 1_500_012_345;
const secretId = 'AKIDpartsTest00000000000000000000000';
const vodSecret = 'vodPartsSecret0000000000000000000000';
const clientKey = `sk-${'p'.repeat(48)}`;
const secrets = [accessKey, klingSecret, secretId, vodSecret];

let kling: FakeKlingUpstream;
let vod: FakeTencentVodUpstream;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  kling = await startFakeKlingUpstream({ accessKey, secretKey: klingSecret, now: () => clock });
  vod = await startFakeTencentVodUpstream({ secrets: { [secretId]: vodSecret }, subAppId, now: () => clock });
  const common = { groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: {} };
  gateway = await startTestGateway({
    dialect: preferredDialect(),
    now: () => clock,
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      prices: { 'kling-v2-6': { per_second: 0.14 }, 'Kling-2.6': { per_second: 0.5 } },
      channels: [
        { name: 'kling', type: 'kling', base_url: kling.url, key: `${accessKey}|${klingSecret}`, models: ['kling-v2-6'], ...common },
        { name: 'vod', type: 'tencent-vod', base_url: vod.url, key: `${subAppId}|${secretId}|${vodSecret}`, models: ['Kling-2.6'], ...common },
      ],
      users: [{ username: 'parts', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'parts-key', user: 'parts', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await kling?.close();
  await vod?.close();
});

const { call, poll, upstreamIdOf } = taskSuiteClient({ gateway: () => gateway, key: clientKey, tokenName: 'parts-key', tick: () => {
    clock += 1;
  } });

const db = () => gateway.gateway.services.database.db;
let logsBefore = 0;
let tasksBefore = 0;
beforeEach(async () => {
  await gateway.settled();
  logsBefore = Number((await db().selectFrom('logs').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0);
  tasksBefore = Number((await db().selectFrom('tasks').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0);
});

/** What this test stored about its requests and tasks (what the log views and task queries are made of). */
async function stored(): Promise<string> {
  await gateway.settled();
  return JSON.stringify([
    await db().selectFrom('logs').selectAll().where('id', '>', logsBefore).execute(),
    await db().selectFrom('tasks').select(['fail_reason']).where('id', '>', tasksBefore).execute(),
  ]);
}

function expectNoSecret(text: string): void {
  for (const secret of secrets) expect(text).not.toContain(secret);
}

describe('a channel key in parts', () => {
  it('Kling refusing a task with a message quoting the AccessKey alone: the client reads it masked', async () => {
    kling.enqueueFault({ route: 'create', status: 400, body: { code: 1201, message: `AccessKey ${accessKey} may not use model kling-v2-6`, request_id: 'r1', data: null } });
    const response = await call('/kling/v1/videos/text2video', { model_name: 'kling-v2-6', prompt: 'a fox', duration: '5' });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).toContain('AccessKey *** may not use model kling-v2-6');
    expectNoSecret(text);
    expectNoSecret(await stored());
  });

  it('a Kling task failed with a status message quoting the AccessKey: its failure reason is masked', async () => {
    const response = await call('/kling/v1/videos/text2video', { model_name: 'kling-v2-6', prompt: 'a hare', duration: '5' });
    expect(response.status).toBe(200);
    const video = (await response.json()) as { id: string };
    const taskId = (await upstreamIdOf(video.id)).split('/')[1] as string;
    kling.advance(taskId, { status: 'failed', statusMsg: `quota of account ${accessKey} exhausted` });
    await poll();
    const answer = await (await call(`/kling/v1/videos/text2video/${video.id}`)).text();
    expect(answer).toContain('quota of account *** exhausted');
    expectNoSecret(answer);
    expectNoSecret(await (await call(`/v1/videos/${video.id}`)).text());
    expectNoSecret(await stored());
  });

  it('Tencent VOD refusing a submit with a message quoting the SecretId: masked (VOD’s own error reader)', async () => {
    vod.enqueueFault({ action: 'CreateAigcVideoTask', error: { Code: 'InvalidParameterValue.Prompt', Message: `SecretId ${secretId} may not use this prompt` } });
    const response = await call('/v1/video/generations', { model: 'Kling-2.6', prompt: 'a boat' });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).toContain('may not use this prompt');
    expectNoSecret(text);
    expectNoSecret(await stored());
  });

  it('a VOD task failed with a message quoting the SecretId: its failure reason is masked', async () => {
    const response = await call('/v1/video/generations', { model: 'Kling-2.6', prompt: 'a lantern' });
    expect(response.status).toBe(200);
    const created = (await response.json()) as { id?: string; task_id?: string };
    const publicId = (created.task_id ?? created.id) as string;
    vod.advance(await upstreamIdOf(publicId), { status: 'ABORTED', message: `the SecretId ${secretId} was suspended` });
    await poll();
    const answer = await (await call(`/v1/video/generations/${publicId}`)).text();
    expect(answer).toContain('the SecretId *** was suspended');
    expectNoSecret(answer);
    expectNoSecret(await stored());
  });

  it('Kling refusing the key with a message quoting the AccessKey: the failure and its log row are masked', async () => {
    kling.enqueueFault({ route: 'create', status: 401, body: { code: 1000, message: `AccessKey ${accessKey} is not valid`, request_id: 'r2', data: null } });
    const response = await call('/kling/v1/videos/text2video', { model_name: 'kling-v2-6', prompt: 'an owl', duration: '5' });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expectNoSecret(await response.text());
    const logs = await stored();
    expect(logs).toContain('AccessKey *** is not valid');
    expectNoSecret(logs);
  });
});
