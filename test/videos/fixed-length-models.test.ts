/**
 * Fixed-length video models (spec §4.9.3): `grok-video-3-pro` is made at 10 s and `grok-video-3-max` at 15 s
 * whatever `seconds` says. With a per-second price the charge is for the clip the upstream makes (10 / 15 s),
 * not for the 4 s the client wrote (or the 4 s default), and `seconds` goes upstream as that length — also
 * when a channel maps the client's model to a fixed-length one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'g'.repeat(48)}`;
const quotaPerUnit = 500_000;
const perSecond = 0.1;
let upstream: FakeVideoUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeVideoUpstream({ expectedKeys: ['sk-up-grok'] });
  gateway = await startTestGateway({
    dialect: 'sqlite',
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      retry_times: 0,
      prices: { 'grok-video-3-pro': { per_second: perSecond }, 'grok-video-3-max': { per_second: perSecond }, 'house-video': { per_second: perSecond } },
      channels: [
        { type: 'openai', name: 'grok-up', base_url: upstream.url, key: 'sk-up-grok', models: ['grok-video-3-pro', 'grok-video-3-max'], groups: ['default'], weight: 1, priority: 0, enabled: true, auto_disable: false, settings: {}, model_mapping: {} },
        { type: 'openai', name: 'grok-mapped', base_url: upstream.url, key: 'sk-up-grok', models: ['house-video'], groups: ['default'], weight: 1, priority: 0, enabled: true, auto_disable: false, settings: {}, model_mapping: { 'house-video': 'grok-video-3-max' } },
      ],
      users: [{ username: 'g', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'g-key', user: 'g', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
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

async function submitForm(model: string, seconds: string | undefined, forced: number): Promise<{ status: number; charge: number }> {
  // The upstream answers as Grok does: the clip is the forced length.
  upstream.enqueueSubmitFault({ kind: 'answer', body: { id: `video_${model}_${seconds ?? 'none'}`, object: 'video', model, status: 'queued', progress: 0, seconds: String(forced), size: '720P' } });
  const form = new FormData();
  form.set('model', model);
  form.set('prompt', 'a cat surfing');
  if (seconds !== undefined) form.set('seconds', seconds);
  const before = await used();
  const response = await fetch(`${gateway.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}` }, body: form });
  await response.text();
  return { status: response.status, charge: (await used()) - before };
}

describe('Grok fixed lengths are billed as made (spec §4.9.3)', () => {
  it('grok-video-3-pro with seconds 4 is billed 10 s', async () => {
    const { status, charge } = await submitForm('grok-video-3-pro', '4', 10);
    expect(status).toBe(200);
    expect(charge).toBe(10 * perSecond * quotaPerUnit);
  });

  it('grok-video-3-max with no seconds is billed 15 s', async () => {
    const { status, charge } = await submitForm('grok-video-3-max', undefined, 15);
    expect(status).toBe(200);
    expect(charge).toBe(15 * perSecond * quotaPerUnit);
  });

  it('a model a channel maps to grok-video-3-max is billed 15 s, and 15 is the length sent', async () => {
    const { status, charge } = await submitForm('house-video', '5', 15);
    expect(status).toBe(200);
    expect(charge).toBe(15 * perSecond * quotaPerUnit);
    expect(upstream.requests.filter((request) => request.method === 'POST').at(-1)).toMatchObject({ fields: { model: 'grok-video-3-max', seconds: '15' } });
  });
});
