/**
 * Audit (tasks): a remix is "priced as its origin: its model, length and size" (docs/behaviour.md "Video").
 * A domestic-family model (`Kling-2.6`, spec §4.9.5 — resellers serve it on `POST /v1/videos`, an
 * OpenAI-style channel) is priced by its resolution tier: `Kling-2.6@720p` for `size: 1280x720`. Its remix
 * must cost what its origin cost, not fall back to the model's base price because the remix looks up
 * `Kling-2.6@1280x720` instead.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'r'.repeat(48)}`;
const quotaPerUnit = 500_000;
let upstream: FakeVideoUpstream;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  upstream = await startFakeVideoUpstream({ expectedKeys: ['sk-up-kling'] });
  gateway = await startTestGateway({
    dialect: 'sqlite',
    now: () => clock,
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      retry_times: 0,
      // The base price is cheap; the 720p tier is what the operator charges for 720p clips.
      prices: { 'Kling-2.6': { per_second: 0.1 }, 'Kling-2.6@720p': { per_second: 0.5 } },
      channels: [
        { type: 'openai', name: 'kling-reseller', base_url: upstream.url, key: 'sk-up-kling', models: ['Kling-2.6'], groups: ['default'], weight: 1, priority: 0, enabled: true, auto_disable: false, settings: {}, model_mapping: {} },
      ],
      users: [{ username: 'r', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'r-key', user: 'r', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function used(): Promise<number> {
  await gateway.settled();
  const row = await gateway.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'r-key').executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

describe('remix price of a tier-priced origin', () => {
  it('a remix of a Kling-2.6 1280x720 video costs what the origin cost (Kling-2.6@720p × seconds)', async () => {
    const client = new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const before = await used();
    const origin = await client.videos.create({ model: 'Kling-2.6' as 'sora-2', prompt: 'origin', seconds: '8', size: '1280x720' });
    const originCharge = (await used()) - before;
    expect(originCharge).toBe(0.5 * 8 * quotaPerUnit);

    const row = await gateway.gateway.services.database.db.selectFrom('tasks').selectAll().where('public_id', '=', origin.id).executeTakeFirstOrThrow();
    upstream.advance(row.upstream_id as string, { status: 'completed' });
    clock += 1;
    await gateway.gateway.services.taskEngine.pollOnce();
    expect((await client.videos.retrieve(origin.id)).status).toBe('completed');

    const beforeRemix = await used();
    const remix = await client.videos.remix(origin.id, { prompt: 'at night' });
    expect(remix.remixed_from_video_id).toBe(origin.id);
    // Now: 0.1 × 8 (the base price: `Kling-2.6@1280x720` is looked up, not the tier). Should be the origin's 0.5 × 8.
    expect((await used()) - beforeRemix).toBe(originCharge);
  });
});
