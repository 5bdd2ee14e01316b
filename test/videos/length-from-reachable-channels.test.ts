/**
 * A video request's length and price are decided before a channel is chosen, from "the channels that list
 * the model" (run-video-submit.ts vodRoutesOf). Those must be the channels that can serve THIS caller:
 * a channel of another group, or a disabled one, that maps the model to a fixed-length model
 * (grok-video-3-max, 15 s) must not make a default-group caller's 4 s clip billed (and sent) as 15 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'g'.repeat(48)}`;
const quotaPerUnit = 500_000;
const perSecond = 0.1;
let upstream: FakeVideoUpstream;
let gateway: TestGateway;

const base = { type: 'openai' as const, weight: 1, priority: 0, auto_disable: false, settings: {} };

beforeAll(async () => {
  upstream = await startFakeVideoUpstream({ expectedKeys: ['sk-up'] });
  gateway = await startTestGateway({
    dialect: 'sqlite',
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      retry_times: 0,
      groups: { default: 1, vip: 1 },
      prices: { 'house-a': { per_second: perSecond }, 'house-b': { per_second: perSecond }, 'house-c': { per_second: perSecond } },
      channels: [
        { ...base, name: 'plain', base_url: upstream.url, key: 'sk-up', models: ['house-a', 'house-b', 'house-c'], groups: ['default'], enabled: true, model_mapping: {} },
        // Not reachable by the default caller: another group's channel, a disabled one, another group's VOD channel.
        { ...base, name: 'vip-max', base_url: upstream.url, key: 'sk-up', models: ['house-a'], groups: ['vip'], enabled: true, model_mapping: { 'house-a': 'grok-video-3-max' } },
        { ...base, name: 'off-max', base_url: upstream.url, key: 'sk-up', models: ['house-b'], groups: ['default'], enabled: false, model_mapping: { 'house-b': 'grok-video-3-max' } },
        { ...base, type: 'tencent-vod', name: 'vip-vod', base_url: upstream.url, key: '1500000000|AKIDxxxx|secretxxxx', models: ['house-c'], groups: ['vip'], enabled: true, model_mapping: {} },
      ],
      users: [{ username: 'g', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'g-key', user: 'g', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    } as any,
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function used(): Promise<number> {
  await gateway.settled();
  const row = await gateway.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'g-key').executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

async function submit(model: string, seconds: string | undefined): Promise<{ charge: number; sentSeconds: unknown }> {
  upstream.enqueueSubmitFault({ kind: 'answer', body: { id: `video_${model}`, object: 'video', model, status: 'queued', progress: 0, seconds: seconds ?? '4', size: '720x1280' } });
  const before = await used();
  const response = await fetch(`${gateway.url}/v1/videos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, prompt: 'a cat surfing', ...(seconds === undefined ? {} : { seconds }) }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const sent = upstream.requests.filter((request) => request.method === 'POST').at(-1) as any;
  return { charge: (await used()) - before, sentSeconds: (sent?.json ?? sent?.fields)?.seconds };
}

describe('video length and price come from the channels this caller can reach', () => {
  it('a vip channel mapping the model to grok-video-3-max does not make a default caller’s 4 s clip 15 s', async () => {
    const { charge, sentSeconds } = await submit('house-a', '4');
    expect(sentSeconds).toBe('4');
    expect(charge).toBe(4 * perSecond * quotaPerUnit);
  });

  it('a disabled channel mapping the model to grok-video-3-max does not either', async () => {
    const { charge, sentSeconds } = await submit('house-b', '4');
    expect(sentSeconds).toBe('4');
    expect(charge).toBe(4 * perSecond * quotaPerUnit);
  });

  it('a vip Tencent VOD channel listing the model does not give a default caller the domestic 5 s default', async () => {
    const { charge, sentSeconds } = await submit('house-c', undefined);
    expect(sentSeconds).toBe('4');
    expect(charge).toBe(4 * perSecond * quotaPerUnit);
  });
});
