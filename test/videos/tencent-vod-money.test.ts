/**
 * Money and request building for tencent-vod channels, through the real gateway
 * in front of test/fakes/fake-tencent-vod-upstream.ts. Each test asserts the correct behaviour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTencentVodUpstream, type FakeTencentVodUpstream } from '../fakes/fake-tencent-vod-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { preferredDialect } from './videos-fixture.js';
import { taskSuiteClient } from '../support/task-suite-client.js';

const subAppId = 1_500_012_345;
const secretId = 'AKIDauditvod000000000000000000000000';
const secretKey = 'vodAuditSecret00000000000000000000';
const clientKey = `sk-${'a'.repeat(48)}`;
const quotaPerUnit = 500_000;
/** Per second, in thousandths. */
const perSecondMilli: Record<string, number> = {
  'Kling-3.0': 600,
  'Kling-3.0@720p': 600,
  'Kling-3.0@1080p': 800,
  'kling-2.6-1080p-audio': 1000,
  'Kling-2.6': 500,
  'Kling-identify-face': 100,
  lipsync: 100,
  'vidu-q2-pro-1080p-offpeak': 350,
};
const charge = (model: string, seconds: number) => ((perSecondMilli[model] as number) * seconds * quotaPerUnit) / 1000;

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
          // A trailing slash, and a region: both must still sign correctly.
          base_url: `${vod.url}/`,
          key: `${subAppId}|${secretId}|${secretKey}|ap-guangzhou`,
          models: ['Kling-3.0', 'Kling-2.6', 'kling-2.6-1080p-audio', 'Kling-identify-face', 'lipsync', 'vidu-q2-pro-1080p-offpeak'],
          model_mapping: { 'kling-2.6-1080p-audio': 'Kling-2.6', lipsync: 'Kling-identify-face', 'vidu-q2-pro-1080p-offpeak': 'Vidu-q2-pro' },
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
  await gateway?.close();
  await vod?.close();
});

const { used, call } = taskSuiteClient({ gateway: () => gateway, key: clientKey, tokenName: 'maker-key', tick: () => undefined });
const lastCreate = () => vod.requests.filter((request) => request.action === 'CreateAigcVideoTask').at(-1)?.body as { OutputConfig: Record<string, unknown> } & Record<string, unknown>;

describe('tencent-vod money probes', () => {
  it('charges the resolution VOD is asked to render: output_config.resolution 1080P with size 720p is not billed at the 720p price', async () => {
    const before = await used();
    const response = await call('/v1/videos', { model: 'Kling-3.0', prompt: 'A harbour at dawn', size: '720p', metadata: { output_config: { resolution: '1080P' } } });
    expect(response.status).toBe(200);
    const sent = lastCreate().OutputConfig.Resolution;
    const charged = (await used()) - before;
    // Whatever the gateway chooses, what is billed must match what VOD renders.
    expect({ sent, charged }).toEqual({ sent, charged: sent === '1080P' ? charge('Kling-3.0@1080p', 5) : charge('Kling-3.0@720p', 5) });
  });

  it('charges the resolution VOD is asked to render: size 1920x1080 (sent as Resolution 1080P) is not billed below the 1080p price', async () => {
    const before = await used();
    const response = await call('/v1/videos', { model: 'Kling-3.0', prompt: 'A harbour at dusk', size: '1920x1080' });
    expect(response.status).toBe(200);
    const sent = lastCreate().OutputConfig.Resolution;
    const charged = (await used()) - before;
    expect({ sent, charged }).toEqual({ sent, charged: sent === '1080P' ? charge('Kling-3.0@1080p', 5) : charge('Kling-3.0', 5) });
  });

  it('a combined billing name with `1080p` and `audio` (priced as such) asks VOD for 1080P with sound', async () => {
    const before = await used();
    const response = await call('/v1/videos', { model: 'kling-2.6-1080p-audio', prompt: 'Rain on a tin roof' });
    expect(response.status).toBe(200);
    expect((await used()) - before).toBe(charge('kling-2.6-1080p-audio', 5));
    expect(lastCreate().OutputConfig).toMatchObject({ AudioGeneration: 'Enabled', Resolution: '1080P' });
  });

  it('a combined billing name with `offpeak` (priced at the off-peak rate) asks VOD for OffPeak', async () => {
    const before = await used();
    const response = await call('/v1/videos', { model: 'vidu-q2-pro-1080p-offpeak', prompt: 'Night market' });
    expect(response.status).toBe(200);
    expect((await used()) - before).toBe(charge('vidu-q2-pro-1080p-offpeak', 5));
    expect(lastCreate()).toMatchObject({ ModelName: 'Vidu', ModelVersion: 'q2-pro' });
    expect(lastCreate().OutputConfig).toMatchObject({ OffPeak: 'Enabled', Resolution: '1080P' });
  });

  it('bills a lip-sync task under 5 s as 5 s when the model reaching VOD is identify-face through a mapping', async () => {
    const before = await used();
    const response = await call('/v1/videos', { model: 'lipsync', prompt: 'Say hello', seconds: 2, metadata: { video_url: 'https://cdn.example/face.mp4' } });
    expect(response.status).toBe(200);
    expect(lastCreate()).toMatchObject({ ModelName: 'Kling', ModelVersion: 'identify-face' });
    expect((await used()) - before).toBe(charge('lipsync', 5));
  });

  it('signs a non-ASCII prompt, a base_url with a trailing slash and a region key', async () => {
    const response = await call('/v1/videos', { model: 'Kling-2.6', prompt: '雨中的纸船 — café ☔ 🚣' });
    expect(response.status).toBe(200);
    const create = vod.requests.filter((request) => request.action === 'CreateAigcVideoTask').at(-1);
    expect(create?.headers['x-tc-region']).toBe('ap-guangzhou');
    expect((create?.body as { Prompt: string }).Prompt).toBe('雨中的纸船 — café ☔ 🚣');
  });

  it('Duration equals the seconds billed whichever length field is used', async () => {
    for (const [body, seconds] of [
      [{ duration: 10 }, 10],
      [{ metadata: { seconds: 10, output_config: { duration: 3 } } }, 10],
      [{ seconds: '10', metadata: { output_config: { Duration: 15 } } }, 10],
      [{ metadata: { OutputConfig: { DURATION: 15 } } }, 5],
    ] as const) {
      const before = await used();
      const response = await call('/v1/videos', { model: 'Kling-2.6', prompt: 'x', ...body });
      expect(response.status).toBe(200);
      expect(lastCreate().OutputConfig.Duration).toBe(seconds);
      expect(Object.keys(lastCreate().OutputConfig).filter((name) => name.toLowerCase() === 'duration')).toEqual(['Duration']);
      expect((await used()) - before).toBe(charge('Kling-2.6', seconds));
    }
  });
});
