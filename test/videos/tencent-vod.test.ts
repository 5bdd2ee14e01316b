/**
 * Spec §4.9.5 (the domestic channel) through the real gateway: a `tencent-vod` channel in front of the fake
 * VOD API (test/fakes/fake-tencent-vod-upstream.ts), which checks every call's TC3 signature with a verifier
 * held to Tencent's published example. Charges are computed here from docs/behaviour.md "Video".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTencentVodUpstream, type FakeTencentVodUpstream } from '../fakes/fake-tencent-vod-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { preferredDialect } from './videos-fixture.js';
import { taskSuiteClient } from '../support/task-suite-client.js';

const subAppId = 1_500_012_345;
const secretId = 'AKIDrelaytest00000000000000000000000';
const secretKey = 'vodSecretKey0000000000000000000000';
const clientKey = `sk-${'k'.repeat(48)}`;
const quotaPerUnit = 500_000;
/** Prices in thousandths per second of clip. */
const perSecondMilli = { 'Kling-2.6': 500, 'kling-2.6-1080p-audio': 1000, 'Kling-identify-face': 100 } as const;
const charge = (model: keyof typeof perSecondMilli, seconds: number) => (perSecondMilli[model] * seconds * quotaPerUnit) / 1000;

let vod: FakeTencentVodUpstream;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  vod = await startFakeTencentVodUpstream({ secrets: { [secretId]: secretKey }, subAppId, now: () => clock });
  gateway = await startTestGateway({
    dialect: preferredDialect(),
    now: () => clock,
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      prices: Object.fromEntries(Object.entries(perSecondMilli).map(([model, milli]) => [model, { per_second: milli / 1000 }])),
      channels: [
        {
          name: 'vod',
          type: 'tencent-vod',
          base_url: vod.url,
          key: `${subAppId}|${secretId}|${secretKey}`,
          models: ['Kling-2.6', 'kling-2.6-1080p-audio', 'Kling-identify-face'],
          model_mapping: { 'kling-2.6-1080p-audio': 'Kling-2.6' },
          groups: ['default'],
          priority: 0,
          weight: 1,
          enabled: true,
          auto_disable: false,
          settings: {},
        },
      ],
      users: [{ username: 'maker', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'maker-key', user: 'maker', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway.close();
  await vod.close();
});

const { used, call, poll, upstreamIdOf } = taskSuiteClient({ gateway: () => gateway, key: clientKey, tokenName: 'maker-key', tick: () => {
    clock += 1;
  } });

describe('a Tencent VOD video task', () => {
  it('is created with a signed CreateAigcVideoTask built from the unified body, and charged 5 seconds by default', async () => {
    const before = await used();
    const response = await call('/v1/video/generations', {
      model: 'Kling-2.6',
      prompt: 'A paper boat on a rainy street',
      image: 'https://cdn.example/first.png',
      size: '1280x720',
      metadata: { last_frame_url: 'https://cdn.example/last.png', output_config: { audio_generation: 'Enabled', storage_mode: 'Temporary' }, negative_prompt: 'blur' },
    });
    expect(response.status).toBe(200);
    const video = (await response.json()) as { id: string; status: string; seconds: string; model: string };
    expect(video).toMatchObject({ status: 'queued', seconds: '5', model: 'Kling-2.6' });
    expect((await used()) - before).toBe(charge('Kling-2.6', 5));

    const create = vod.requests.find((request) => request.action === 'CreateAigcVideoTask');
    expect(create?.headers['x-tc-version']).toBe('2018-07-17');
    expect(create?.body).toEqual({
      SubAppId: subAppId,
      ModelName: 'Kling',
      ModelVersion: '2.6',
      Prompt: 'A paper boat on a rainy street',
      NegativePrompt: 'blur',
      FileInfos: [{ Type: 'Url', Category: 'Image', Url: 'https://cdn.example/first.png', Usage: 'FirstFrame' }],
      LastFrameUrl: 'https://cdn.example/last.png',
      OutputConfig: { AudioGeneration: 'Enabled', StorageMode: 'Temporary', Duration: 5, Resolution: '720P', AspectRatio: '16:9' },
      SessionId: video.id,
    });
  });

  it('is polled with DescribeTaskDetail, and its video is streamed from the file URL VOD gives', async () => {
    const response = await call('/v1/videos', { model: 'Kling-2.6', prompt: 'Lanterns over a river', seconds: 10 });
    const video = (await response.json()) as { id: string };
    const taskId = await upstreamIdOf(video.id);
    vod.advance(taskId, { status: 'PROCESSING', progress: 35 });
    await poll();
    expect(await (await call(`/v1/videos/${video.id}`)).json()).toMatchObject({ status: 'in_progress', progress: 35, seconds: '10' });
    const describe = vod.requests.filter((request) => request.action === 'DescribeTaskDetail').at(-1);
    expect(describe?.body).toEqual({ TaskId: taskId, SubAppId: subAppId });

    vod.advance(taskId, { status: 'FINISH', progress: 100 });
    await poll();
    const done = (await (await call(`/v1/videos/${video.id}`)).json()) as { status: string; video_url: string };
    expect(done.status).toBe('completed');
    const content = await call(`/v1/videos/${video.id}/content`);
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await content.arrayBuffer()).equals(vod.contentOf(taskId))).toBe(true);
    expect((await call(`/v1/videos/${video.id}/content?variant=thumbnail`)).status).toBe(400);
  });

  it('prices a base model asked for 1080p with sound in its output config as the combined name', async () => {
    const before = await used();
    const response = await call('/v1/video/generations', { model: 'Kling-2.6', prompt: 'With sound', seconds: 5, metadata: { output_config: { resolution: '1080P', audio_generation: 'Enabled' } } });
    expect(response.status).toBe(200);
    expect((await used()) - before).toBe(charge('kling-2.6-1080p-audio', 5));
    expect(vod.requests.filter((request) => request.action === 'CreateAigcVideoTask').at(-1)?.body).toMatchObject({ OutputConfig: { Resolution: '1080P', AudioGeneration: 'Enabled' } });
  });

  it('is refunded when VOD finishes it with an error code, and when it is aborted', async () => {
    const before = await used();
    const failing = (await (await call('/v1/videos', { model: 'kling-2.6-1080p-audio', prompt: 'Fails', seconds: 10 })).json()) as { id: string };
    const aborted = (await (await call('/v1/videos', { model: 'Kling-2.6', prompt: 'Aborted' })).json()) as { id: string };
    expect((await used()) - before).toBe(charge('kling-2.6-1080p-audio', 10) + charge('Kling-2.6', 5));
    expect(vod.requests.filter((request) => request.action === 'CreateAigcVideoTask').at(-2)?.body).toMatchObject({ ModelName: 'Kling', ModelVersion: '2.6', OutputConfig: { Duration: 10 } });

    vod.advance(await upstreamIdOf(failing.id), { status: 'FINISH', errCode: 70_000, errCodeExt: 'RiskControl', message: 'The prompt did not pass review.' });
    vod.advance(await upstreamIdOf(aborted.id), { status: 'ABORTED' });
    await poll();
    expect(await (await call(`/v1/videos/${failing.id}`)).json()).toMatchObject({ status: 'failed', error: { message: 'The prompt did not pass review.' } });
    expect(((await (await call(`/v1/videos/${aborted.id}`)).json()) as { status: string }).status).toBe('failed');
    expect(await used()).toBe(before);
  });

  it('bills a lip-sync task under 5 seconds as 5', async () => {
    const before = await used();
    const response = await call('/v1/videos', { model: 'Kling-identify-face', prompt: 'Say hello', seconds: 3, metadata: { scene_type: 'lip_sync', video_url: 'https://cdn.example/face.mp4' } });
    expect(response.status).toBe(200);
    expect((await used()) - before).toBe(charge('Kling-identify-face', 5));
    expect(vod.requests.filter((request) => request.action === 'CreateAigcVideoTask').at(-1)?.body).toMatchObject({
      SceneType: 'lip_sync',
      OutputConfig: { Duration: 3 },
      FileInfos: [{ Type: 'Url', Category: 'Video', Url: 'https://cdn.example/face.mp4', Usage: 'Reference' }],
    });
  });

  it('refuses what VOD cannot take before any charge: a data: URI, more than 3 files', async () => {
    const before = await used();
    const creates = vod.requests.filter((request) => request.action === 'CreateAigcVideoTask').length;
    const dataUri = await call('/v1/video/generations', { model: 'Kling-2.6', prompt: 'x', image: 'data:image/png;base64,iVBORw0KGgo=' });
    expect(dataUri.status).toBe(400);
    expect(await dataUri.json()).toMatchObject({ error: { param: 'image' } });
    const tooMany = await call('/v1/video/generations', { model: 'Kling-2.6', prompt: 'x', images: ['https://a.example/1.png', 'https://a.example/2.png', 'https://a.example/3.png', 'https://a.example/4.png'] });
    expect(tooMany.status).toBe(400);
    expect(vod.requests.filter((request) => request.action === 'CreateAigcVideoTask').length).toBe(creates);
    expect(await used()).toBe(before);
  });

  it('passes VOD’s refusal of a parameter back as a 400, at no charge and with no task left', async () => {
    const before = await used();
    vod.enqueueFault({ action: 'CreateAigcVideoTask', error: { Code: 'InvalidParameterValue.AspectRatio', Message: 'AspectRatio 2:1 is not supported.' } });
    const response = await call('/v1/videos', { model: 'Kling-2.6', prompt: 'x', metadata: { output_config: { aspect_ratio: '2:1' } } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('InvalidParameterValue.AspectRatio');
    expect(await used()).toBe(before);
    const rows = await gateway.gateway.services.database.db.selectFrom('tasks').select('status').where('status', '=', 'not_start').execute();
    expect(rows).toEqual([]);
  });

  it('answers a rejected signature (AuthFailure) as a failed submit, at no charge', async () => {
    const before = await used();
    vod.enqueueFault({ action: 'CreateAigcVideoTask', error: { Code: 'AuthFailure.SignatureFailure', Message: 'The provided credentials could not be validated.' } });
    const response = await call('/v1/videos', { model: 'Kling-2.6', prompt: 'x' });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(await used()).toBe(before);
  });

  it('tests the channel with a signed DescribeTaskDetail', async () => {
    const channel = gateway.gateway.services.catalog.snapshot.channels.find((candidate) => candidate.name === 'vod');
    const response = await fetch(`${gateway.url}/api/admin/channels/${channel?.id}/test`, { method: 'POST', headers: { authorization: `Bearer ${gateway.adminKey}` } });
    expect(await response.json()).toMatchObject({ success: true, data: { status: 200 } });
    expect(vod.requests.at(-1)?.body).toEqual({ TaskId: 'relay-channel-test', SubAppId: subAppId });
  });
});
