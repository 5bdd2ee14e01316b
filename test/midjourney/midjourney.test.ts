/**
 * Midjourney (spec §4.8, protocols.md §1) through the real gateway: `midjourney` channels in front of the
 * fake Midjourney-proxy (test/fakes/fake-midjourney-upstream.ts). Charges are computed here from the
 * per-call prices of docs/behaviour.md "Midjourney".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startTaskGateway } from '../support/start-task-gateway.js';
import { startTaskProxies, type TaskProxies } from '../support/start-task-proxies.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { midjourneyClient, type MjTask, type SubmitAnswer } from './midjourney-client.js';

const clientKey = `sk-${'p'.repeat(48)}`;
const otherKey = `sk-${'q'.repeat(48)}`;
const quotaPerUnit = 500_000;
const prices = { mj_imagine: 0.05, mj_upscale: 0.02, mj_variation: 0.04, mj_reroll: 0.045, mj_inpaint: 0.01, mj_modal: 0.03, mj_upload: 0.001, mj_describe: 0.015, swap_face: 0.06, mj_blend: 0.055 } as const;
type PricedModel = keyof typeof prices;
const charge = (model: PricedModel) => prices[model] * quotaPerUnit;
const taskIdPattern = /^task_[A-Za-z0-9]{32}$/;

let mj: FakeMidjourneyUpstream;
let spare: FakeMidjourneyUpstream;
let proxies: TaskProxies<'midjourney'>;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  proxies = await startTaskProxies('midjourney', { bearerSpare: true });
  [mj, spare] = [proxies.up, proxies.spare];
  gateway = await startTaskGateway({
    type: 'midjourney',
    now: () => clock,
    prices,
    channels: proxies.channels,
    users: { painter: clientKey, other: otherKey },
  });
});
afterAll(async () => {
  await gateway.close();
  await proxies.close();
});

const { used, call, poll, upstreamIdOf } = taskSuiteClient({
  gateway: () => gateway,
  key: clientKey,
  tokenName: 'painter-key',
  tick: () => {
    clock += 1;
  },
});

const { submit, fetchTask, finishedImagine } = midjourneyClient({ used, call, poll, upstreamIdOf }, () => [mj, spare]);
const submitsTo = (upstream: FakeMidjourneyUpstream, path: string) => upstream.requests.filter((request) => request.method === 'POST' && request.path === path);

describe('Midjourney tasks', () => {
  it('imagines: answers a public id, charges mj_imagine once, and shows the image and buttons once done, never the proxy’s ids or accounts', async () => {
    const before = await used();
    const answer = await submit('/mj/submit/imagine', { prompt: 'a lighthouse at dusk --ar 16:9', state: 'order-7', notifyHook: 'https://client.example/hook', accountFilter: { instanceId: 'x' } });
    expect(answer).toMatchObject({ code: 1, description: 'Submit success' });
    expect(answer.result).toMatch(taskIdPattern);
    expect(answer.properties).toEqual({});
    expect((await used()) - before).toBe(charge('mj_imagine'));
    const [sent] = submitsTo(mj, '/mj/submit/imagine').slice(-1);
    expect(sent?.headers['mj-api-secret']).toBe('mj-secret-up');
    expect(sent?.body).toEqual({ prompt: 'a lighthouse at dusk --ar 16:9', state: 'order-7' });

    const id = answer.result as string;
    expect(await fetchTask(id)).toMatchObject({ id, action: 'IMAGINE', status: 'SUBMITTED', progress: '0%', prompt: 'a lighthouse at dusk --ar 16:9', state: 'order-7', imageUrl: null, failReason: null, buttons: [] });
    const upstreamId = await upstreamIdOf(id);
    mj.advance(upstreamId, { status: 'IN_PROGRESS', progress: '40%' });
    await poll();
    expect(await fetchTask(id)).toMatchObject({ status: 'IN_PROGRESS', progress: '40%' });
    mj.advance(upstreamId, { status: 'SUCCESS' });
    clock += 5_000;
    await poll();
    const done = await fetchTask(id);
    expect(done).toMatchObject({ status: 'SUCCESS', progress: '100%', imageUrl: `${mj.url}/images/${upstreamId}.png`, failReason: null, properties: { finalPrompt: 'a lighthouse at dusk --ar 16:9' } });
    expect(done.finishTime).toBe(clock);
    expect(done.buttons.map((button) => button.label)).toEqual(['U1', 'U2', 'U3', 'U4', '', 'V1', 'V2', 'V3', 'V4']);
    // The link and the buttons' message hashes are the proxy's own (the fake's hashes contain its ids).
    const { imageUrl: _link, buttons: _buttons, ...shown } = done;
    expect(JSON.stringify(shown)).not.toContain(upstreamId);
    expect(JSON.stringify(done)).not.toContain('instance-secret');
    expect((await used()) - before).toBe(charge('mj_imagine'));
  });

  it('accepts the speed prefixes and the mj-api-secret header, and calls the proxy at /mj', async () => {
    const before = await used();
    const response = await fetch(`${gateway.url}/mj-relax/mj/submit/imagine`, { method: 'POST', headers: { 'mj-api-secret': clientKey, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'slow boat' }) });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as SubmitAnswer;
    expect(answer.code).toBe(1);
    expect(submitsTo(mj, '/mj/submit/imagine').at(-1)?.body).toEqual({ prompt: 'slow boat' });
    expect((await used()) - before).toBe(charge('mj_imagine'));
    const fetched = await fetch(`${gateway.url}/mj-fast/mj/task/${answer.result as string}/fetch`, { headers: { 'mj-api-secret': clientKey } });
    expect(await fetched.json()).toMatchObject({ id: answer.result, action: 'IMAGINE' });
  });

  it('changes a finished image on the channel and key that made it, with the proxy’s id, priced by the action', async () => {
    const origin = await finishedImagine('a red fox');
    const before = await used();
    const upscale = await submit('/mj/submit/change', { taskId: origin.id, action: 'UPSCALE', index: 2 });
    expect(upscale.code).toBe(1);
    expect(upscale.result).toMatch(taskIdPattern);
    expect(submitsTo(mj, '/mj/submit/change').at(-1)?.body).toEqual({ taskId: origin.upstreamId, action: 'UPSCALE', index: 2 });
    expect((await used()) - before).toBe(charge('mj_upscale'));

    const variation = await submit('/mj/submit/simple-change', { content: `${origin.id} V3` });
    expect(submitsTo(mj, '/mj/submit/simple-change').at(-1)?.body).toEqual({ content: `${origin.upstreamId} V3` });
    expect((await used()) - before).toBe(charge('mj_upscale') + charge('mj_variation'));
    await poll();
    const variationTask = await fetchTask(variation.result as string);
    expect(variationTask).toMatchObject({ action: 'VARIATION' });
    // The proxy describes it as `/up <origin's proxy id> V3`: shown with the public id.
    expect(variationTask.description).toBe(`/up ${origin.id} V3`);

    const reroll = (await fetchTask(origin.id)).buttons.find((button) => button.customId.includes('reroll'));
    const rerolled = await submit('/mj/submit/action', { taskId: origin.id, customId: reroll?.customId, chooseSameChannel: true });
    expect(rerolled.code).toBe(1);
    expect(submitsTo(mj, '/mj/submit/action').at(-1)?.body).toMatchObject({ taskId: origin.upstreamId, customId: reroll?.customId });
    expect((await fetchTask(rerolled.result as string)).action).toBe('REROLL');
    expect((await used()) - before).toBe(charge('mj_upscale') + charge('mj_variation') + charge('mj_reroll'));
    expect(spare.requests).toHaveLength(0);
  });

  it('refuses to continue a task that is not finished, not the caller’s, or unknown, and charges nothing', async () => {
    const pending = (await submit('/mj/submit/imagine', { prompt: 'still drawing' })).result as string;
    const foreign = await finishedImagine('mine only');
    const before = await used('other-key');
    const cases: [unknown, number, number][] = [
      [{ taskId: pending, action: 'UPSCALE', index: 1 }, 400, 4],
      [{ taskId: foreign.id, action: 'UPSCALE', index: 1 }, 404, 3],
      [{ taskId: 'task_nosuchtasknosuchtasknosuchtask12', action: 'VARIATION', index: 1 }, 404, 3],
      [{ taskId: '1700000000000001', action: 'VARIATION', index: 1 }, 404, 3],
      [{ taskId: foreign.id, action: 'UPSCALE' }, 400, 4],
      [{ taskId: foreign.id, action: 'ZOOM', index: 1 }, 400, 4],
    ];
    for (const [body, status, code] of cases) {
      // `pending` is the painter's, `foreign` too: the other user may touch neither.
      const key = body === cases[0]?.[0] ? clientKey : otherKey;
      const response = await call('/mj/submit/change', body, key);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(await response.json()).toMatchObject({ code, result: null });
    }
    expect(await used('other-key')).toBe(before);
  });

  it('refunds a task the proxy fails, once, with a task-refund row', async () => {
    const before = await used();
    const id = (await submit('/mj/submit/imagine', { prompt: 'doomed' })).result as string;
    mj.advance(await upstreamIdOf(id), { status: 'FAILURE', failReason: 'Discord said no' });
    await poll();
    await poll();
    expect(await fetchTask(id)).toMatchObject({ status: 'FAILURE', failReason: 'Discord said no', progress: '' });
    expect(await used()).toBe(before);
    const refunds = await gateway.gateway.services.database.db.selectFrom('logs').selectAll().where('style', '=', 'task-refund').where('path', '=', `/mj/task/${id}/fetch`).execute();
    expect(refunds.map((row) => Number(row.quota))).toEqual([-charge('mj_imagine')]);
  });

  it('answers a banned prompt as the proxy did, charges nothing and does not try another channel', async () => {
    mj.enqueueSubmitFault({ kind: 'code', code: 24, description: 'banned prompt', properties: { promptEn: 'forbidden thing', bannedWord: 'forbidden', discordInstanceId: 'instance-secret-1' } });
    const before = await used();
    const answer = await submit('/mj/submit/imagine', { prompt: 'forbidden thing' });
    expect(answer).toEqual({ code: 24, description: 'banned prompt', result: null, properties: { promptEn: 'forbidden thing', bannedWord: 'forbidden' } });
    expect(await used()).toBe(before);
    expect(spare.requests).toHaveLength(0);
  });

  it('fails over a full queue or a failing proxy to another channel and charges once', async () => {
    for (const fault of [{ kind: 'code', code: 23 }, { kind: 'http', status: 500 }] as const) {
      mj.enqueueSubmitFault(fault);
      const before = await used();
      const answer = await submit('/mj/submit/imagine', { prompt: `second chance ${fault.kind}` });
      expect(answer.code).toBe(1);
      expect(submitsTo(spare, '/mj/submit/imagine').at(-1)?.headers['mj-api-secret']).toBe('mj-secret-spare');
      expect((await used()) - before).toBe(charge('mj_imagine'));
      // Polled on the channel that took it.
      const upstreamId = await upstreamIdOf(answer.result as string);
      spare.advance(upstreamId, { status: 'SUCCESS' });
      await poll();
      expect((await fetchTask(answer.result as string)).imageUrl).toBe(`${spare.url}/images/${upstreamId}.png`);
    }
  });

  it('keeps code 21 for an inpaint (free: it only opens the modal), shows it MODAL, and sends the modal (billed) to the same task upstream', async () => {
    const origin = await finishedImagine('a quiet street');
    const before = await used();
    const inpaint = await submit('/mj/submit/action', { taskId: origin.id, customId: `MJ::Inpaint::1::hash${origin.upstreamId}::SOLO` });
    expect(inpaint).toMatchObject({ code: 21, properties: { remix: true } });
    expect(inpaint.result).toMatch(taskIdPattern);
    expect((await used()) - before).toBe(0);
    const inpaintUpstream = await upstreamIdOf(inpaint.result as string);
    await poll();
    expect(await fetchTask(inpaint.result as string)).toMatchObject({ action: 'INPAINT', status: 'MODAL' });

    const modal = await submit('/mj/submit/modal', { taskId: inpaint.result, prompt: 'add a cat', maskBase64: 'data:image/png;base64,AAAA' });
    expect(modal.code).toBe(1);
    expect(submitsTo(mj, '/mj/submit/modal').at(-1)?.body).toEqual({ taskId: inpaintUpstream, prompt: 'add a cat', maskBase64: 'data:image/png;base64,AAAA' });
    expect((await used()) - before).toBe(charge('mj_modal'));
    mj.advance(inpaintUpstream, { status: 'SUCCESS' });
    await poll();
    expect(await fetchTask(modal.result as string)).toMatchObject({ action: 'MODAL', status: 'SUCCESS' });
    expect(await fetchTask(inpaint.result as string)).toMatchObject({ status: 'SUCCESS' });
    // A finished task has no modal left.
    const again = await call('/mj/submit/modal', { taskId: inpaint.result });
    expect(again.status).toBe(400);
    expect((await used()) - before).toBe(charge('mj_modal'));
  });

  it('answers a queued proxy (22) as submitted (1), without the proxy’s instance', async () => {
    mj.answerNextQueued();
    const answer = await submit('/mj/submit/imagine', { prompt: 'wait your turn' });
    expect(answer).toMatchObject({ code: 1, properties: { numberOfQueues: 2 } });
    expect(JSON.stringify(answer)).not.toContain('instance-secret');
  });

  it('uploads images: the links back, charged mj_upload', async () => {
    const before = await used();
    const answer = await submit('/mj/submit/upload-discord-images', { base64Array: ['data:image/png;base64,AAAA', 'data:image/png;base64,BBBB'] });
    expect(answer.code).toBe(1);
    expect(answer.result).toEqual([expect.stringMatching(/^https:\/\/cdn\.discordapp\.com\//), expect.stringMatching(/^https:\/\/cdn\.discordapp\.com\//)]);
    expect((await used()) - before).toBe(charge('mj_upload'));
  });

  it('describes, blends and swaps faces, each at its own price', async () => {
    const before = await used();
    expect((await submit('/mj/submit/describe', { base64: 'data:image/png;base64,AAAA' })).code).toBe(1);
    expect((await submit('/mj/submit/blend', { base64Array: ['data:image/png;base64,AAAA', 'data:image/png;base64,BBBB'], dimensions: 'SQUARE' })).code).toBe(1);
    const swap = await submit('/mj/insight-face/swap', { sourceBase64: 'data:image/png;base64,AAAA', targetBase64: 'data:image/png;base64,BBBB' });
    expect(swap.code).toBe(1);
    expect(submitsTo(mj, '/mj/insight-face/swap')).toHaveLength(1);
    expect((await fetchTask(swap.result as string)).action).toBe('SWAP_FACE');
    expect((await used()) - before).toBe(charge('mj_describe') + charge('mj_blend') + charge('swap_face'));
  });

  it('lists the caller’s own tasks by id in the order asked', async () => {
    const first = (await submit('/mj/submit/imagine', { prompt: 'one' })).result as string;
    const second = (await submit('/mj/submit/imagine', { prompt: 'two' })).result as string;
    const foreign = (await submit('/mj/submit/imagine', { prompt: 'not yours' }, otherKey)).result as string;
    const response = await call('/mj/task/list-by-condition', { ids: [second, foreign, first, 'task_unknown', second] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as MjTask[]).map((task) => [task.id, task.prompt])).toEqual([
      [second, 'two'],
      [first, 'one'],
    ]);
    expect(await (await call('/mj/task/list-by-condition', { ids: [] })).json()).toEqual([]);
    expect((await call('/mj/task/list-by-condition', { ids: 'x' })).status).toBe(400);
    expect((await call('/mj/task/list-by-condition', { ids: Array.from({ length: 101 }, () => first) })).status).toBe(400);
  });

  it('gives the seed of a finished image from its proxy, free, and refuses an unfinished one', async () => {
    const origin = await finishedImagine('seeded');
    const before = await used();
    const seed = await call(`/mj/task/${origin.id}/image-seed`);
    expect(seed.status).toBe(200);
    const answer = (await seed.json()) as { code: number; result: string };
    expect(answer.code).toBe(1);
    expect(answer.result).toMatch(/^\d+$/);
    expect(mj.requests.at(-1)?.path).toBe(`/mj/task/${origin.upstreamId}/image-seed`);
    const pending = (await submit('/mj/submit/imagine', { prompt: 'no seed yet' })).result as string;
    const middle = await used();
    expect(middle - before).toBe(charge('mj_imagine'));
    expect((await call(`/mj/task/${pending}/image-seed`)).status).toBe(400);
    expect(await used()).toBe(middle);
  });

  it('relays a task’s image bytes at /mj/image/{id} without a key', async () => {
    const origin = await finishedImagine('framed');
    const response = await fetch(`${gateway.url}/mj/image/${origin.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer()).equals(mj.imageOf(origin.upstreamId))).toBe(true);
    const pending = (await submit('/mj/submit/imagine', { prompt: 'no image yet' })).result as string;
    const missing = await fetch(`${gateway.url}/mj/image/${pending}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 3, result: null });
    expect((await fetch(`${gateway.url}/mj/image/nope`)).status).toBe(404);
  });

  it('refuses bad bodies and keys in the proxy’s envelope, before anything is charged or sent', async () => {
    const before = await used();
    const sentBefore = mj.requests.length;
    const cases: [string, unknown, number][] = [
      ['/mj/submit/imagine', {}, 400],
      ['/mj/submit/imagine', { prompt: 42 }, 400],
      ['/mj/submit/imagine', { prompt: 'x', base64Array: 'nope' }, 400],
      ['/mj/submit/imagine', { prompt: 'x', botType: 'DALL_E' }, 400],
      ['/mj/submit/blend', { base64Array: ['data:image/png;base64,AAAA'] }, 400],
      ['/mj/submit/describe', {}, 400],
      ['/mj/submit/action', { taskId: 'task_x', customId: 'MJ::JOB::dance::1::abc' }, 400],
      ['/mj/submit/simple-change', { content: 'task_x U9' }, 400],
      ['/mj/insight-face/swap', { sourceBase64: 'data:image/png;base64,AAAA' }, 400],
      ['/mj/submit/video', { motion: 'fast', prompt: 'x' }, 400],
      ['/mj/submit/paint', { prompt: 'x' }, 404],
    ];
    for (const [path, body, status] of cases) {
      const response = await call(path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      const error = (await response.json()) as { code: number; description: string; result: null };
      expect(error).toMatchObject({ code: status === 404 ? 3 : 4, result: null });
      expect(error.description).toMatch(/request id/);
    }
    const broken = await fetch(`${gateway.url}/mj/submit/imagine`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: '{"prompt":' });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ code: 4 });
    const anonymous = await fetch(`${gateway.url}/mj/submit/imagine`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"x"}' });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 4, type: 'missing_api_key', result: null });
    const wrong = await fetch(`${gateway.url}/mj/task/list-by-condition`, { method: 'POST', headers: { 'mj-api-secret': `sk-${'z'.repeat(48)}`, 'content-type': 'application/json' }, body: '{"ids":[]}' });
    expect(wrong.status).toBe(401);
    expect(await used()).toBe(before);
    expect(mj.requests.length).toBe(sentBefore);
  });

  it('tests a channel with an empty list-by-condition, and fails one whose secret the proxy refuses', async () => {
    const channel = gateway.gateway.services.catalog.snapshot.channels.find((candidate) => candidate.name === 'mj-spare');
    const admin = (path: string, method: string, body?: unknown) =>
      fetch(`${gateway.url}/api/admin/channels/${channel?.id}${path}`, { method, headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    expect(await (await admin('/test', 'POST')).json()).toMatchObject({ success: true });
    // The key was configured as `Bearer mj-secret-spare`: the prefix is not sent.
    expect(spare.requests.at(-1)).toMatchObject({ path: '/mj/task/list-by-condition', body: { ids: [] }, headers: { 'mj-api-secret': 'mj-secret-spare' } });
    expect((await admin('', 'PUT', { key: 'mj-wrong' })).status).toBe(200);
    expect(await (await admin('/test', 'POST')).json()).toMatchObject({ success: false, data: { status: 401 } });
    expect((await admin('', 'PUT', { key: 'Bearer mj-secret-spare' })).status).toBe(200);
  });

  it('keeps midjourney channels out of chat, and other channels out of Midjourney', async () => {
    const chat = await call('/v1/chat/completions', { model: 'mj_imagine', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(503);
    expect(mj.requests.some((request) => request.path.startsWith('/v1/'))).toBe(false);
  });
});
