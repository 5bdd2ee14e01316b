/**
 * A Seedance 2 task names its reference assets as `asset://<id>` URLs (the resellers' form). The upstream
 * account behind a channel is shared by every caller, so the gateway checks each named asset is the
 * caller's own (asset_owners) before anything is reserved or sent, and sends the task to the channel and key
 * that made the assets — the only account that knows them — over priority and key rotation.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeArkAssetUpstream, type FakeArkAssetUpstream } from '../fakes/fake-ark-asset-upstream.js';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startPathRouter, type PathRouter } from '../fakes/path-router.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { aliceKey, bobKey, statusOf } from './asset-owners-fixture.js';

const seedance = 'doubao-seedance-2-0-260128';
const assetKeys = ['ark-key-first-00000', 'ark-key-second-0000'];
const otherKey = 'ark-key-other-00000';

let assets: FakeArkAssetUpstream;
let videosA: FakeVideoUpstream;
let videosB: FakeVideoUpstream;
let router: PathRouter;
let gateway: TestGateway;
const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const assetSdk = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });

async function createAsset(key: string): Promise<string> {
  const answer = await assetSdk(key).post<{ Result: { Id: string } }>('/api/asset/createMedia', { body: { url: 'https://example.com/cat.jpg', name: 'cat.jpg', assetType: 'Image' } });
  return answer.Result.Id;
}

function submit(key: string, extra: Record<string, unknown>): Promise<{ id: string }> {
  return sdk(key).post<{ id: string }>('/videos', { body: { model: seedance, prompt: 'the cat walks', seconds: '4', size: '1280x720', ...extra } });
}

async function usedQuota(user: string): Promise<number> {
  await gateway.settled();
  const { db } = gateway.gateway.services.database;
  const row = await db.selectFrom('users').select('used_quota').where('username', '=', user).executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

beforeAll(async () => {
  assets = await startFakeArkAssetUpstream({ expectedKeys: assetKeys, idPrefix: 'asset-20260327164915-r' });
  videosA = await startFakeVideoUpstream({ expectedKeys: assetKeys });
  videosB = await startFakeVideoUpstream({ expectedKeys: [otherKey] });
  router = await startPathRouter([
    ['/api/asset/', assets.url],
    ['/v1/videos', videosA.url],
  ]);
  const channel = { type: 'openai', weight: 1, auto_disable: false, enabled: true, model_mapping: {}, models: [seedance], groups: ['default'] };
  gateway = await startTestGateway({
    config: {
      groups: { default: 1 },
      prices: { [seedance]: { per_second: 0.1 } },
      channels: [
        // The account that holds the assets: lower priority, two keys rotated.
        { ...channel, name: 'ark-assets', base_url: router.url, keys: assetKeys, priority: 0, settings: {} },
        // Preferred for video, but it serves no asset routes: a task without assets goes here.
        { ...channel, name: 'ark-video', base_url: videosB.url, key: otherKey, priority: 10, settings: { asset_api: false } },
      ],
      users: [
        { username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true },
        { username: 'bob', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true },
      ],
      tokens: [
        { name: 'alice-key', user: 'alice', key: aliceKey, quota: 1_000_000_000, expires_at: 0, enabled: true },
        { name: 'bob-key', user: 'bob', key: bobKey, quota: 1_000_000_000, expires_at: 0, enabled: true },
      ],
    } as never,
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([router?.close(), assets?.close(), videosA?.close(), videosB?.close()]);
});
beforeEach(() => {
  videosA.requests.length = 0;
  videosB.requests.length = 0;
});

const submits = (upstream: FakeVideoUpstream) => upstream.requests.filter((request) => request.method === 'POST');

describe('asset references in a Seedance video task', () => {
  it("goes to the channel and key that made the caller's assets, over priority and key rotation", async () => {
    const id = await createAsset(aliceKey);
    await submit(aliceKey, { image_url: `asset://${id}` });
    await submit(aliceKey, { metadata: { image_with_roles: [{ url: `Asset://${id}`, role: 'first_frame' }] } });
    expect(submits(videosB)).toHaveLength(0);
    const sent = submits(videosA);
    expect(sent).toHaveLength(2);
    // The asset was made with the channel's first key; rotation alone would have sent the second task with the other.
    expect(sent.map((request) => request.headers.authorization)).toEqual([`Bearer ${assetKeys[0]}`, `Bearer ${assetKeys[0]}`]);
    expect(sent[0]?.fields?.image_url).toBe(`asset://${id}`);
  });

  it('a task without assets is routed as before (the higher priority channel)', async () => {
    await submit(aliceKey, { image_url: 'https://example.com/cat.jpg' });
    expect(submits(videosB)).toHaveLength(1);
    expect(submits(videosA)).toHaveLength(0);
  });

  it("another caller's asset is a 400 before anything is reserved or sent", async () => {
    const id = await createAsset(aliceKey);
    const before = await usedQuota('bob');
    let failure: any;
    try {
      await submit(bobKey, { image_url: `asset://${id}` });
    } catch (error) {
      failure = error;
    }
    expect(failure?.status).toBe(400);
    expect(failure?.error?.message).toContain(`No asset 'asset://${id}'`);
    expect(submits(videosA)).toHaveLength(0);
    expect(submits(videosB)).toHaveLength(0);
    expect(await usedQuota('bob')).toBe(before);
    const { db } = gateway.gateway.services.database;
    expect(await db.selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute()).toEqual([]);
  });

  it('an asset the gateway never made is a 400, alone or beside an own asset', async () => {
    const own = await createAsset(aliceKey);
    expect(await statusOf(submit(aliceKey, { image_url: 'asset://asset-20260327164915-nobody' }))).toBe(400);
    expect(await statusOf(submit(aliceKey, { image_url: `asset://${own}`, video_url: 'asset://asset-20260327164915-nobody' }))).toBe(400);
    expect(submits(videosA)).toHaveLength(0);
    expect(submits(videosB)).toHaveLength(0);
  });
});
