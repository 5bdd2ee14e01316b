/**
 * From the Midjourney audit (protocols.md §1, spec §4.8): an Inpaint or CustomZoom button (code 21) is free
 * and its modal billed once, as new-api bills them; a FAILURE refunded once; describe and shorten at their
 * own prices; bad input free and not sent; another user's task unreachable; `/mj/image/{id}`; the fetched
 * task's public id, buttons, image and progress.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMidjourneyUpstream, type FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startTaskGateway } from '../support/start-task-gateway.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { midjourneyClient } from '../midjourney/midjourney-client.js';

const clientKey = `sk-${'a'.repeat(48)}`;
const otherKey = `sk-${'b'.repeat(48)}`;
const quotaPerUnit = 500_000;
const prices = { mj_imagine: 0.05, mj_upscale: 0.02, mj_variation: 0.04, mj_reroll: 0.045, mj_inpaint: 0.01, mj_custom_zoom: 0.02, mj_modal: 0.03, mj_upload: 0.001, mj_describe: 0.015, mj_shorten: 0.01, swap_face: 0.06, mj_blend: 0.055 } as const;
type PricedModel = keyof typeof prices;
const charge = (model: PricedModel) => prices[model] * quotaPerUnit;

let mj: FakeMidjourneyUpstream;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  mj = await startFakeMidjourneyUpstream({ expectedKeys: ['mj-secret-up'] });
  gateway = await startTaskGateway({ type: 'midjourney', now: () => clock, prices, channels: [{ name: 'mj-up', base_url: mj.url, key: 'mj-secret-up', priority: 10 }], users: { painter: clientKey, other: otherKey } });
});

afterAll(async () => {
  await gateway.close();
  await mj.close();
});

const { used, call, poll, upstreamIdOf } = taskSuiteClient({ gateway: () => gateway, key: clientKey, tokenName: 'painter-key', tick: () => { clock += 1; } });
const { submit, fetchTask, finishedImagine } = midjourneyClient({ used, call, poll, upstreamIdOf }, () => [mj]);
const submits = (path: string) => mj.requests.filter((request) => request.method === 'POST' && request.path === path).length;

describe('MJ audit: money', () => {
  // new-api relay/mjproxy_handler.go: `if midjRequest.Action == MjActionInPaint || ... MjActionCustomZoom { consumeQuota = false }`
  // — the button that only opens the modal is free; the modal that makes the image is billed (mj_modal).
  it('an Inpaint button (code 21, opens the modal) is not billed; the modal is billed once', async () => {
    const origin = await finishedImagine('inpaint price');
    const before = await used();
    const inpaint = await submit('/mj/submit/action', { taskId: origin.id, customId: `MJ::Inpaint::1::hash${origin.upstreamId}::SOLO` });
    expect(inpaint.code).toBe(21);
    expect((await used()) - before).toBe(0);
    await submit('/mj/submit/modal', { taskId: inpaint.result, prompt: 'add a cat', maskBase64: 'data:image/png;base64,AAAA' });
    mj.advance(await upstreamIdOf(inpaint.result as string), { status: 'SUCCESS' });
    await poll();
    expect((await used()) - before).toBe(charge('mj_modal'));
  });

  it('a CustomZoom button (code 21, opens the modal) is not billed; the modal is billed once', async () => {
    const origin = await finishedImagine('zoom price');
    const before = await used();
    const zoom = await submit('/mj/submit/action', { taskId: origin.id, customId: `MJ::CustomZoom::hash${origin.upstreamId}` });
    expect(zoom.code).toBe(21);
    await submit('/mj/submit/modal', { taskId: zoom.result, prompt: 'zoom --zoom 1.5' });
    mj.advance(await upstreamIdOf(zoom.result as string), { status: 'SUCCESS' });
    await poll();
    expect((await used()) - before).toBe(charge('mj_modal'));
  });

  it('a task the proxy reports FAILURE is refunded exactly once, even when polled again', async () => {
    const before = await used();
    const answer = await submit('/mj/submit/imagine', { prompt: 'fail me' });
    mj.advance(await upstreamIdOf(answer.result as string), { status: 'FAILURE', failReason: 'boom' });
    await poll();
    await poll();
    await poll();
    expect((await used()) - before).toBe(0);
    const task = await fetchTask(answer.result as string);
    expect(task).toMatchObject({ status: 'FAILURE', progress: '' });
  });

  it('describe and shorten are priced as mj_describe / mj_shorten', async () => {
    let before = await used();
    await submit('/mj/submit/describe', { base64: 'data:image/png;base64,AAAA' });
    expect((await used()) - before).toBe(charge('mj_describe'));
    before = await used();
    await submit('/mj/submit/shorten', { prompt: 'a very long prompt' });
    expect((await used()) - before).toBe(charge('mj_shorten'));
  });
});

describe('MJ audit: bad input never reaches the proxy nor costs', () => {
  for (const [path, body] of [
    ['/mj/submit/imagine', {}],
    ['/mj/submit/imagine', { prompt: '   ' }],
    ['/mj/submit/blend', { base64Array: ['data:image/png;base64,AAAA'] }],
    ['/mj/submit/blend', {}],
    ['/mj/submit/describe', {}],
    ['/mj/submit/upload-discord-images', { base64Array: [] }],
    ['/mj/insight-face/swap', { sourceBase64: 'data:x' }],
    ['/mj/submit/action', { taskId: 'task_' + 'x'.repeat(32) }],
    ['/mj/submit/action', { customId: 'MJ::JOB::upsample::1::h' }],
    ['/mj/submit/modal', {}],
  ] as const) {
    it(`${path} ${JSON.stringify(body)} → 400, free, not sent`, async () => {
      const before = await used();
      const sent = submits(path);
      const response = await call(path, body);
      expect(response.status).toBe(400);
      const json = (await response.json()) as Record<string, unknown>;
      expect(typeof json.code).toBe('number');
      expect(submits(path)).toBe(sent);
      expect((await used()) - before).toBe(0);
    });
  }
});

describe('MJ audit: isolation and the image route', () => {
  it('another user cannot run a button of my task (action with a customId) — 404, free, not sent', async () => {
    const mine = await finishedImagine('mine');
    const before = await used('other-key');
    const sent = submits('/mj/submit/action');
    const response = await call('/mj/submit/action', { taskId: mine.id, customId: `MJ::JOB::upsample::1::hash${mine.upstreamId}` }, otherKey);
    expect(response.status).toBe(404);
    expect(submits('/mj/submit/action')).toBe(sent);
    expect((await used('other-key')) - before).toBe(0);
  });

  it('/mj/image/{id} 404s for an unknown id and for a task without an image', async () => {
    expect((await fetch(`${gateway.url}/mj/image/task_${'z'.repeat(32)}`)).status).toBe(404);
    const answer = await submit('/mj/submit/imagine', { prompt: 'no image yet' });
    expect((await fetch(`${gateway.url}/mj/image/${answer.result as string}`)).status).toBe(404);
  });

  it('fetch shows the public id, buttons and image once SUCCESS; progress "NN%" while running', async () => {
    const answer = await submit('/mj/submit/imagine', { prompt: 'progress' });
    const upstreamId = await upstreamIdOf(answer.result as string);
    mj.advance(upstreamId, { status: 'IN_PROGRESS', progress: '45%' });
    await poll();
    expect(await fetchTask(answer.result as string)).toMatchObject({ id: answer.result, status: 'IN_PROGRESS', progress: '45%', buttons: [] });
    mj.advance(upstreamId, { status: 'SUCCESS' });
    await poll();
    const task = await fetchTask(answer.result as string);
    expect(task).toMatchObject({ id: answer.result, status: 'SUCCESS', progress: '100%' });
    expect(task.buttons).toHaveLength(9);
    expect(task.imageUrl).toMatch(/^http/);
    const image = await fetch(`${gateway.url}/mj/image/${answer.result as string}`);
    expect(image.status).toBe(200);
  });
});
