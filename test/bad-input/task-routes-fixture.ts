/**
 * Bad input on the task, image and admin route families: the real gateway (SQLite, max_body_mb 0.05) in front
 * of every task and image fake, one client key per account state (bad-input-fixture.ts's keys), with that
 * file's `send`, `expectEnvelope` and `withoutCharge`.
 */
import { startFakeMidjourneyUpstream, type FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startFakeSunoUpstream, type FakeSunoUpstream } from '../fakes/fake-suno-upstream.js';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startFakeKlingUpstream, type FakeKlingUpstream } from '../fakes/fake-kling-upstream.js';
import { startFakeTencentVodUpstream, type FakeTencentVodUpstream } from '../fakes/fake-tencent-vod-upstream.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startFakeObjectStore, type FakeObjectStore } from '../fakes/fake-object-store.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { keys, readBalances } from './bad-input-fixture.js';

export { expectEnvelope, keys, send, withoutCharge } from './bad-input-fixture.js';


const subAppId = 1_500_012_345;
const secretId = 'AKIDrelaytest00000000000000000000000';
const secretKey = 'vodSecretKey0000000000000000000000';
const klingAccess = 'kling-access-key-audit';
const klingSecret = 'kling-secret-key-audit-0000000000';

export interface TaskRoutesFixture {
  gateway: TestGateway;
  url: string;
  upstreamCalls(): number;
  balances(): Promise<{ tokens: unknown[]; users: unknown[]; openReservations: number; tasks: number }>;
  openai: FakeOpenaiUpstream;
  images: ScriptedUpstream;
  mj: FakeMidjourneyUpstream;
  suno: FakeSunoUpstream;
  video: FakeVideoUpstream;
  kling: FakeKlingUpstream;
  vod: FakeTencentVodUpstream;
  s3: FakeObjectStore;
  close(): Promise<void>;
}

export const mjPrices = { mj_imagine: 0.05, mj_upscale: 0.02, mj_variation: 0.04, mj_reroll: 0.045, mj_describe: 0.015, mj_blend: 0.055, mj_shorten: 0.01, mj_modal: 0.01, mj_video: 0.1, mj_upload: 0.001, mj_edits: 0.02, swap_face: 0.06 };

export async function startTaskRoutesFixture(): Promise<TaskRoutesFixture> {
  const openai = await startFakeOpenaiUpstream({ expectedKeys: ['sk-openai-upstream'] });
  const images = await startScriptedUpstream({ fallback: { json: { created: 1, data: [{ url: 'https://img.example/1.png' }] } } });
  const mj = await startFakeMidjourneyUpstream({ expectedKeys: ['mj-secret-up'] });
  const suno = await startFakeSunoUpstream({ expectedKeys: ['sk-suno-up'] });
  const video = await startFakeVideoUpstream({ expectedKeys: ['sk-up-sora'] });
  const kling = await startFakeKlingUpstream({ accessKey: klingAccess, secretKey: klingSecret });
  const vod = await startFakeTencentVodUpstream({ secrets: { [secretId]: secretKey }, subAppId });
  const s3 = await startFakeObjectStore({ bucket: 'relay-uploads', accessKeyId: 'AKIDRELAYTEST', secretAccessKey: 'relay-test-secret' });
  const base = { groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} };
  const gateway = await startTestGateway({
    env: { TASK_POLL_INTERVAL: '0', UPLOAD_S3_ENDPOINT: s3.url, UPLOAD_S3_BUCKET: 'relay-uploads', UPLOAD_S3_ACCESS_KEY_ID: 'AKIDRELAYTEST', UPLOAD_S3_SECRET_ACCESS_KEY: 'relay-test-secret' },
    config: {
      max_body_mb: 0.05,
      retry_times: 0,
      prices: {
        'gpt-4o-mini': { input: 1, output: 2 },
        'text-embedding-3-small': { input: 0.02 },
        'omni-moderation-latest': { per_call: 0.001 },
        'rerank-v1': { per_call: 0.002 },
        'dall-e-3': { per_call: 0.04 },
        'gpt-image-1': { input: 5, output: 40 },
        ...Object.fromEntries(Object.entries(mjPrices).map(([model, price]) => [model, { per_call: price }])),
        suno_music: { per_call: 0.1 },
        suno_lyrics: { per_call: 0.01 },
        'sora-2': { per_second: 0.1 },
        'kling-v2-6': { per_second: 0.1 },
        'Kling-2.6': { per_second: 0.5 },
      },
      channels: [
        { ...base, name: 'openai', type: 'openai', base_url: openai.url, key: 'sk-openai-upstream', models: ['gpt-4o-mini', 'text-embedding-3-small', 'omni-moderation-latest', 'rerank-v1'] },
        { ...base, name: 'images', type: 'openai', base_url: images.url, key: 'sk-img', models: ['dall-e-3', 'gpt-image-1'] },
        { ...base, name: 'mj', type: 'midjourney', base_url: mj.url, key: 'mj-secret-up', models: Object.keys(mjPrices) },
        { ...base, name: 'suno', type: 'suno', base_url: suno.url, key: 'sk-suno-up', models: ['suno_music', 'suno_lyrics'] },
        { ...base, name: 'sora', type: 'openai', base_url: video.url, key: 'sk-up-sora', models: ['sora-2'] },
        { ...base, name: 'kling', type: 'kling', base_url: kling.url, key: `${klingAccess}|${klingSecret}`, models: ['kling-v2-6'] },
        { ...base, name: 'vod', type: 'tencent-vod', base_url: vod.url, key: `${subAppId}|${secretId}|${secretKey}`, models: ['Kling-2.6'] },
      ],
      users: [
        { username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true },
        { username: 'bob', role: 'user', group: 'default', quota: 1_000_000_000, enabled: false },
      ],
      tokens: [
        { name: 'good', user: 'alice', key: keys.good, quota: 100_000_000, expires_at: 0, enabled: true },
        { name: 'disabled', user: 'alice', key: keys.disabled, quota: 100_000_000, expires_at: 0, enabled: false },
        { name: 'expired', user: 'alice', key: keys.expired, quota: 100_000_000, expires_at: 1_000_000, enabled: true },
        { name: 'exhausted', user: 'alice', key: keys.exhausted, quota: 0, expires_at: 0, enabled: true },
        { name: 'restricted', user: 'alice', key: keys.restricted, quota: 100_000_000, model_limits: ['gpt-4o-mini'], expires_at: 0, enabled: true },
        { name: 'disabled-user', user: 'bob', key: keys.disabledUser, quota: 100_000_000, expires_at: 0, enabled: true },
      ],
    },
  });
  const { db } = gateway.gateway.services.database;
  return {
    gateway,
    url: gateway.url,
    openai, images, mj, suno, video, kling, vod, s3,
    upstreamCalls: () => openai.requests.length + images.requests.length + mj.requests.length + suno.requests.length + video.requests.length + kling.requests.length + vod.requests.length,
    async balances() {
      // Settled first (readBalances waits for it): the task rows are read after.
      const balances = await readBalances(gateway);
      const tasks = await db.selectFrom('tasks').select(['id']).execute();
      return { ...balances, tasks: tasks.length };
    },
    async close() {
      await gateway.close();
      await Promise.all([openai.close(), images.close(), mj.close(), suno.close(), video.close(), kling.close(), vod.close(), s3.close()]);
    },
  };
}
