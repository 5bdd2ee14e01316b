/**
 * A Kling submit Kling accepted while the database refused to record it (the path every task kind shares,
 * src/relay/task-submit/run-task-submit.ts): the video is not lost. Kling's native route (no SDK speaks
 * it) by fetch, the video read back with the `openai` SDK. The refusal is the driver's, for
 * `markSubmitted` only (test/support/submit-write-blips.ts); charges come from docs/behaviour.md "Video".
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFakeKlingUpstream, type FakeKlingUpstream } from '../fakes/fake-kling-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { refuseSubmittedWrites, until } from '../support/submit-write-blips.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { allDialects } from '../support/test-databases.js';

const accessKey = 'AKkling0000000000000000';
const secretKey = 'SKkling0000000000000000';
const clientKey = `sk-${'k'.repeat(48)}`;
/** kling-v2-6 at 0.14 per second, 5 seconds. */
const fiveSecondCharge = Math.round(0.14 * 5 * 500_000);

describe.each(allDialects)('a Kling submit the database refuses to record, on $dialect', ({ dialect, available }) => {
  let kling: FakeKlingUpstream | undefined;
  let gateway: TestGateway | undefined;
  let clock = Date.now();

  afterEach(async () => {
    vi.restoreAllMocks();
    await gateway?.close();
    await kling?.close();
    gateway = undefined;
    kling = undefined;
  });

  const client = taskSuiteClient({ gateway: () => gateway as TestGateway, key: clientKey, tokenName: 'kl-key', tick: () => (clock += 1) });

  it.skipIf(!available)('an outage past the request: answered its video at once, charged once, written in the background, then polled to completion', async () => {
    const upstream = (kling = await startFakeKlingUpstream({ accessKey, secretKey, now: () => clock }));
    gateway = await startTestGateway({
      dialect,
      now: () => clock,
      env: { TASK_POLL_INTERVAL: '0' },
      config: {
        prices: { 'kling-v2-6': { per_second: 0.14 } },
        channels: [{ name: 'kling', type: 'kling', base_url: upstream.url, key: `${accessKey}|${secretKey}`, models: ['kling-v2-6'], groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: {} }],
        users: [{ username: 'kl', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
        tokens: [{ name: 'kl-key', user: 'kl', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
      },
    });
    const openai = new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    // Four tries within the request, then two background tries refused (0.5 s and 1 s after); the next lands.
    const outcomes = refuseSubmittedWrites(gateway, 6);
    const before = await client.used();

    const response = await client.call('/kling/v1/videos/text2video', { model_name: 'kling-v2-6', prompt: 'a fox in a blip', duration: '5' });
    expect(response.status).toBe(200);
    const video = (await response.json()) as { id: string; status: string };
    expect(video).toMatchObject({ status: 'queued' });
    expect(outcomes.slice(0, 4)).toEqual(['refused', 'refused', 'refused', 'refused']);
    expect((await client.used()) - before).toBe(fiveSecondCharge);

    await until(() => outcomes.includes('written'));
    expect(outcomes).toEqual(['refused', 'refused', 'refused', 'refused', 'refused', 'refused', 'written']);
    const upstreamId = await client.upstreamIdOf(video.id);
    expect(upstreamId).toMatch(/^text2video\//);
    upstream.advance(upstreamId.slice('text2video/'.length), { status: 'succeed' });
    await client.poll();
    expect((await openai.videos.retrieve(video.id)).status).toBe('completed');
    expect((await client.used()) - before).toBe(fiveSecondCharge);
    expect(upstream.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
  });
});
