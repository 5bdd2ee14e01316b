/**
 * From the tasks audit: a remix is "priced as its origin" (docs/behaviour.md "Video"), by what the origin
 * was priced by — a domestic-family model's resolution tier (`Kling-2.6@720p` for `size: 1280x720`, spec
 * §4.9.5; resellers serve those models on `POST /v1/videos`, an OpenAI-style channel), a `metadata.mode`
 * variant, a lip-sync clip under 5 s billed as 5 — not the model's base price and the seconds asked for.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/tasks/key-fingerprint.js';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'r'.repeat(48)}`;
const upstreamKey = 'sk-up-kling';
const quotaPerUnit = 500_000;
let upstream: FakeVideoUpstream;
let gateway: TestGateway;
let client: OpenAI;
let clock = Date.now();

beforeAll(async () => {
  upstream = await startFakeVideoUpstream({ expectedKeys: [upstreamKey] });
  gateway = await startTestGateway({
    dialect: 'sqlite',
    now: () => clock,
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      retry_times: 0,
      // Each base price is cheap; the variant is what the operator charges for it.
      prices: {
        'Kling-2.6': { per_second: 0.1 },
        'Kling-2.6@720p': { per_second: 0.5 },
        'kling-v2-6': { per_second: 0.1 },
        'kling-v2-6@pro': { per_second: 0.3 },
        'lab-identify-face': { per_second: 0.2 },
      },
      channels: [
        { type: 'openai', name: 'kling-reseller', base_url: upstream.url, key: upstreamKey, models: ['Kling-2.6', 'kling-v2-6', 'lab-identify-face'], groups: ['default'], weight: 1, priority: 0, enabled: true, auto_disable: false, settings: {}, model_mapping: {} },
      ],
      users: [{ username: 'r', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'r-key', user: 'r', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
  client = new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
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

async function charged<T>(act: () => Promise<T>): Promise<{ result: T; charge: number }> {
  const before = await used();
  const result = await act();
  return { result, charge: (await used()) - before };
}

async function complete(publicId: string): Promise<void> {
  const row = await gateway.gateway.services.database.db.selectFrom('tasks').selectAll().where('public_id', '=', publicId).executeTakeFirstOrThrow();
  upstream.advance(row.upstream_id as string, { status: 'completed' });
  clock += 1;
  await gateway.gateway.services.taskEngine.pollOnce();
  expect((await client.videos.retrieve(publicId)).status).toBe('completed');
}

/** An origin submitted as a JSON body (the route a reseller's client uses for `metadata`). */
async function submitJson(body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${gateway.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

describe('the price of a remix', () => {
  it('is the origin’s tier price: a Kling-2.6 1280x720 video and its remix cost Kling-2.6@720p × seconds', async () => {
    const { result: origin, charge: originCharge } = await charged(() => client.videos.create({ model: 'Kling-2.6' as 'sora-2', prompt: 'origin', seconds: '8', size: '1280x720' }));
    expect(originCharge).toBe(0.5 * 8 * quotaPerUnit);
    await complete(origin.id);

    const { result: remix, charge } = await charged(() => client.videos.remix(origin.id, { prompt: 'at night' }));
    expect(remix.remixed_from_video_id).toBe(origin.id);
    // Before: 0.1 × 8 (`Kling-2.6@1280x720` was looked up, not the tier, so the base price applied).
    expect(charge).toBe(originCharge);

    // A remix of the remix keeps the price too: the remix's row stores what it was priced by.
    await complete(remix.id);
    expect((await charged(() => client.videos.remix(remix.id, { prompt: 'in the rain' }))).charge).toBe(originCharge);
  });

  it('is the origin’s `metadata.mode` price (kling-v2-6@pro)', async () => {
    const { result: originId, charge: originCharge } = await charged(() => submitJson({ model: 'kling-v2-6', prompt: 'origin', seconds: '8', metadata: { mode: 'pro' } }));
    expect(originCharge).toBe(0.3 * 8 * quotaPerUnit);
    await complete(originId);
    expect((await charged(() => client.videos.remix(originId, { prompt: 'pro again' }))).charge).toBe(originCharge);
  });

  it('bills a lip-sync origin’s remix the 5 seconds the origin was billed, not the 4 it asked for', async () => {
    const { result: origin, charge: originCharge } = await charged(() => client.videos.create({ model: 'lab-identify-face' as 'sora-2', prompt: 'origin', seconds: '4' }));
    expect(originCharge).toBe(0.2 * 5 * quotaPerUnit);
    await complete(origin.id);
    const { result: remix, charge } = await charged(() => client.videos.remix(origin.id, { prompt: 'say it again' }));
    expect(remix.seconds).toBe('4');
    expect(charge).toBe(originCharge);
  });

  it('prices a row stored before the price names were kept by its model and size, the tier for a domestic family', async () => {
    const services = gateway.gateway.services;
    const caller = await services.database.db.selectFrom('tokens').select(['id', 'user_id']).where('name', '=', 'r-key').executeTakeFirstOrThrow();
    const channel = services.catalog.snapshot.channels.find((candidate) => candidate.name === 'kling-reseller');
    // A completed upstream video, and a row as an earlier build stored it: seconds and size only.
    const video = await fetch(`${upstream.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${upstreamKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'Kling-2.6', prompt: 'old', seconds: '8', size: '1280x720' }),
    }).then((response) => response.json() as Promise<{ id: string }>);
    upstream.advance(video.id, { status: 'completed' });
    const publicId = `task_${'L'.repeat(32)}`;
    const taskId = await services.repositories.tasks.insert({ publicId, kind: 'video', requestId: 'legacy-remix-origin', userId: caller.user_id, tokenId: caller.id, model: 'Kling-2.6', properties: { seconds: 8, size: '1280x720' } }, clock);
    expect(
      await services.repositories.tasks.markSubmitted(taskId, { channelId: channel!.id, keyFingerprint: keyFingerprint(upstreamKey), upstreamModel: 'Kling-2.6', upstreamId: video.id, status: 'success', progress: 100, result: '{}', nextPollAt: clock }, clock),
    ).toBe(true);
    expect((await charged(() => client.videos.remix(publicId, { prompt: 'old made new' }))).charge).toBe(0.5 * 8 * quotaPerUnit);
  });
});
