/**
 * Midjourney edges (from the Midjourney audit; spec §4.8, protocols.md §1): money on refusals, failures,
 * aborts, modals and concurrency; isolation between users; the proxy's details never reaching clients;
 * bad input. A third, scripted proxy answers slowly, with non-JSON, banned prompts or an HTML "image".
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startTaskGateway } from '../support/start-task-gateway.js';
import { startTaskProxies, type TaskProxies } from '../support/start-task-proxies.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { midjourneyClient, type MjTask, type SubmitAnswer } from './midjourney-client.js';

const clientKey = `sk-${'p'.repeat(48)}`;
const otherKey = `sk-${'q'.repeat(48)}`;
const poorKey = `sk-${'r'.repeat(48)}`;
const quotaPerUnit = 500_000;
const prices = { mj_imagine: 0.05, mj_upscale: 0.02, mj_variation: 0.04, mj_reroll: 0.045, mj_inpaint: 0.01, mj_modal: 0.03, mj_upload: 0.001, mj_describe: 0.015, swap_face: 0.06, mj_blend: 0.055, mj_video: 0.1, mj_shorten: 0.01 } as const;
type PricedModel = keyof typeof prices;
const charge = (model: PricedModel) => prices[model] * quotaPerUnit;
const taskIdPattern = /^task_[A-Za-z0-9]{32}$/;

/** A scriptable proxy serving only `mj_shorten` (its own channel), for delays and non-JSON answers. */
interface Scripted {
  url: string;
  mode: 'ok' | 'delay' | 'nonjson' | 'banned' | 'html-image';
  /** The image a finished task reports in 'html-image' mode; default its own HTML `/page`. */
  imageUrl: string | undefined;
  submits: number;
  close(): Promise<void>;
}
async function startScripted(): Promise<Scripted> {
  const state: Scripted = { url: '', mode: 'ok', imageUrl: undefined, submits: 0, close: async () => undefined };
  let next = 1_800_000_000_000_001;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url?.startsWith('/mj/submit/')) {
        state.submits += 1;
        const id = String(next++);
        if (state.mode === 'nonjson') {
          response.writeHead(200, { 'content-type': 'text/html' });
          response.end('<html>bad gateway</html>');
          return;
        }
        if (state.mode === 'banned') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ code: 24, description: 'banned prompt', result: null, properties: { promptEn: 'x', bannedWord: 'x' } }));
          return;
        }
        const answer = () => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ code: 1, description: 'Submit success', result: id, properties: {} }));
        };
        if (state.mode === 'delay') setTimeout(answer, 600);
        else answer();
        return;
      }
      if (request.url === '/page') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<script>alert(document.cookie)</script>');
        return;
      }
      const asked = request.url === '/mj/task/list-by-condition' && state.mode === 'html-image' ? ((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ids: string[] }).ids ?? []) : [];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(asked.map((id) => ({ id, action: 'SHORTEN', status: 'SUCCESS', progress: '100%', imageUrl: state.imageUrl ?? `${state.url}/page` }))));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

let mj: FakeMidjourneyUpstream;
let spare: FakeMidjourneyUpstream;
let proxies: TaskProxies<'midjourney'>;
let scripted: Scripted;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  [proxies, scripted] = await Promise.all([startTaskProxies('midjourney', { bearerSpare: true, models: Object.keys(prices).filter((model) => model !== 'mj_shorten') }), startScripted()]);
  [mj, spare] = [proxies.up, proxies.spare];
  gateway = await startTaskGateway({
    type: 'midjourney',
    now: () => clock,
    maxBodyMb: 1,
    prices: { ...prices, mj_edits: { input: 1000, output: 1000 } },
    channels: [
      ...proxies.channels,
      { models: ['mj_shorten', 'mj_edits'], name: 'mj-scripted', base_url: scripted.url, key: 'mj-secret-scripted', priority: 0 },
    ],
    users: { painter: clientKey, other: otherKey, poor: { key: poorKey, quota: charge('mj_imagine') * 3 } },
  });
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([proxies.close(), scripted.close()]);
});

const { used, call, poll, upstreamIdOf } = taskSuiteClient({
  gateway: () => gateway,
  key: clientKey,
  tokenName: 'painter-key',
  tick: () => {
    clock += 1;
  },
});
const db = () => gateway.gateway.services.database.db;
const taskCount = async () => (await db().selectFrom('tasks').select('id').execute()).length;

const { submit, fetchTask, finishedImagine } = midjourneyClient({ used, call, poll, upstreamIdOf }, () => [mj, spare]);

describe('Midjourney money', () => {
  it('a proxy HTTP error answer does not reach the client: no instance/channel ids, no upstream task id, nothing charged', async () => {
    const before = await used();
    const rows = await taskCount();
    const leaky = { code: 9, description: 'account instance-secret-1 failed', result: '1700000000099999', properties: { discordInstanceId: 'instance-secret-1', discordChannelId: 'chan-secret' } };
    mj.enqueueSubmitFault({ kind: 'http', status: 500, body: leaky });
    spare.enqueueSubmitFault({ kind: 'http', status: 500, body: leaky });
    const response = await call('/mj/submit/imagine', { prompt: 'leak me' });
    expect(response.status).toBeGreaterThanOrEqual(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ result: null });
    expect(text).not.toContain('instance-secret');
    expect(text).not.toContain('chan-secret');
    expect(text).not.toContain('1700000000099999');
    expect(await used()).toBe(before);
    expect(await taskCount()).toBe(rows);
  });

  it('code 21 with properties.status SUCCESS: answered 1 with a public id, charged once, finished, never polled or refunded', async () => {
    const origin = await finishedImagine('already made');
    const before = await used();
    mj.enqueueSubmitFault({ kind: 'http', status: 200, body: { code: 21, description: 'Task already exists', result: origin.upstreamId, properties: { status: 'SUCCESS', imageUrl: `${mj.url}/images/${origin.upstreamId}.png`, discordInstanceId: 'instance-secret-1' } } });
    const answer = await submit('/mj/submit/change', { taskId: origin.id, action: 'UPSCALE', index: 1 });
    expect(answer.code).toBe(1);
    expect(answer.result).toMatch(taskIdPattern);
    expect(JSON.stringify(answer)).not.toContain('instance-secret');
    // The image link is the proxy's own and may name its id; nothing else may.
    expect(JSON.stringify({ ...answer, properties: { ...answer.properties, imageUrl: undefined } })).not.toContain(origin.upstreamId);
    expect((await used()) - before).toBe(charge('mj_upscale'));
    const task = await fetchTask(answer.result as string);
    expect(task).toMatchObject({ status: 'SUCCESS', progress: '100%' });
    expect(task.finishTime).toBeGreaterThan(0);
    const polledBefore = mj.requests.filter((request) => request.path === '/mj/task/list-by-condition').length;
    clock += 3 * 24 * 3600_000;
    await poll();
    await poll();
    expect(mj.requests.filter((request) => request.path === '/mj/task/list-by-condition').length).toBe(polledBefore);
    expect((await fetchTask(answer.result as string)).status).toBe('SUCCESS');
    expect((await used()) - before).toBe(charge('mj_upscale'));
  });

  it('a proxy refusing with code 9 naming its account instance: the client is not told the instance', async () => {
    mj.enqueueSubmitFault({ kind: 'code', code: 9, description: 'account instance-secret-1 is not logged in' });
    spare.enqueueSubmitFault({ kind: 'code', code: 9, description: 'account instance-secret-1 is not logged in' });
    const before = await used();
    const response = await call('/mj/submit/imagine', { prompt: 'nine' });
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('instance-secret');
    expect(await used()).toBe(before);
  });

  it('a banned prompt (code 24) on a token-priced MJ model costs nothing (the row says nothing was charged)', async () => {
    scripted.mode = 'banned';
    try {
      const before = await used();
      const answer = await submit('/mj/submit/edits', { prompt: 'forbidden '.repeat(2000) });
      expect(answer.code).toBe(24);
      const row = await db().selectFrom('tasks').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'failure', refunded: 1 });
      expect(Number(row.quota)).toBe(0);
      expect((await used()) - before).toBe(0);
    } finally {
      scripted.mode = 'ok';
    }
  });

  it('a proxy answering non-JSON on every channel: MJ envelope 502, nothing charged, no task left', async () => {
    scripted.mode = 'nonjson';
    try {
      const before = await used();
      const rows = await taskCount();
      const response = await call('/mj/submit/shorten', { prompt: 'not json' });
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({ code: 9, result: null });
      expect(await used()).toBe(before);
      expect(await taskCount()).toBe(rows);
    } finally {
      scripted.mode = 'ok';
    }
  });

  it('a client that goes away mid-submit is charged exactly for the tasks it has (none or one, both consistent)', async () => {
    scripted.mode = 'delay';
    try {
      const before = await used();
      const rows = await taskCount();
      const abort = new AbortController();
      const pending = fetch(`${gateway.url}/mj/submit/shorten`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'walk away' }), signal: abort.signal }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 150));
      abort.abort();
      await pending;
      await new Promise((resolve) => setTimeout(resolve, 800));
      const spent = (await used()) - before;
      const created = (await db().selectFrom('tasks').selectAll().execute()).length - rows;
      expect([0, charge('mj_shorten')]).toContain(spent);
      expect(created).toBe(spent === 0 ? 0 : 1);
    } finally {
      scripted.mode = 'ok';
    }
  });

  it('INPAINT + MODAL failing upstream: the modal (the only one charged: an Inpaint only opens it) refunded once, balance back to before', async () => {
    const origin = await finishedImagine('modal fail');
    const before = await used();
    const inpaint = await submit('/mj/submit/action', { taskId: origin.id, customId: `MJ::Inpaint::1::hash${origin.upstreamId}::SOLO` });
    expect(inpaint.code).toBe(21);
    const modal = await submit('/mj/submit/modal', { taskId: inpaint.result, prompt: 'a cat', maskBase64: 'data:image/png;base64,AAAA' });
    expect((await used()) - before).toBe(charge('mj_modal'));
    mj.advance(await upstreamIdOf(inpaint.result as string), { status: 'FAILURE', failReason: 'nope' });
    await poll();
    await poll();
    await poll();
    expect(await used()).toBe(before);
    const refunds = await db().selectFrom('logs').selectAll().where('style', '=', 'task-refund').execute();
    const mine = refunds.filter((row) => row.path === `/mj/task/${inpaint.result as string}/fetch` || row.path === `/mj/task/${modal.result as string}/fetch`);
    expect(mine.map((row) => Number(row.quota))).toEqual([-charge('mj_modal')]);
  });

  it('INPAINT + MODAL succeeding: the modal is charged once and not refunded', async () => {
    const origin = await finishedImagine('modal ok');
    const before = await used();
    const inpaint = await submit('/mj/submit/action', { taskId: origin.id, customId: `MJ::Inpaint::1::hash${origin.upstreamId}::SOLO` });
    await submit('/mj/submit/modal', { taskId: inpaint.result, prompt: 'a dog' });
    mj.advance(await upstreamIdOf(inpaint.result as string), { status: 'SUCCESS' });
    await poll();
    await poll();
    expect((await used()) - before).toBe(charge('mj_modal'));
  });

  it('many concurrent submits on a token that can pay for three never overspend it', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => call('/mj/submit/imagine', { prompt: `rush ${index}` }, poorKey)));
    const ok = answers.filter((response) => response.status === 200).length;
    for (const response of answers) {
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status !== 200) expect(body).toMatchObject({ result: null });
    }
    const spent = await used('poor-key');
    expect(spent).toBeLessThanOrEqual(charge('mj_imagine') * 3);
    expect(spent).toBe(ok * charge('mj_imagine'));
    const token = await db().selectFrom('tokens').select(['remain_quota']).where('name', '=', 'poor-key').executeTakeFirstOrThrow();
    expect(Number(token.remain_quota)).toBeGreaterThanOrEqual(0);
  });

  it('a continuation pinned to a channel that no longer lists the model: refused, nothing charged, no task', async () => {
    const origin = await finishedImagine('pinned');
    const channel = gateway.gateway.services.catalog.snapshot.channels.find((candidate) => candidate.name === 'mj-up');
    const admin = (body: unknown) => fetch(`${gateway.url}/api/admin/channels/${channel?.id}`, { method: 'PUT', headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const models = channel?.models ?? [];
    expect((await admin({ models: models.filter((model) => model !== 'mj_upscale') })).status).toBe(200);
    try {
      const before = await used();
      const rows = await taskCount();
      const sentSpare = spare.requests.length;
      const response = await call('/mj/submit/change', { taskId: origin.id, action: 'UPSCALE', index: 1 });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(await response.json()).toMatchObject({ result: null });
      expect(await used()).toBe(before);
      expect(await taskCount()).toBe(rows);
      expect(spare.requests.length).toBe(sentSpare);
    } finally {
      await admin({ models });
    }
  });
});

describe('Midjourney isolation', () => {
  it('another user cannot fetch, list, seed, continue or modal my task, under any prefix', async () => {
    const mine = await finishedImagine('private');
    const before = await used('other-key');
    for (const prefix of ['/mj', '/mj-fast/mj', '/mj-relax/mj', '/mj-turbo/mj']) {
      expect((await call(`${prefix}/task/${mine.id}/fetch`, undefined, otherKey)).status).toBe(404);
      expect((await call(`${prefix}/task/${mine.upstreamId}/fetch`, undefined, otherKey)).status).toBe(404);
      expect((await call(`${prefix}/task/${mine.id}/image-seed`, undefined, otherKey)).status).toBe(404);
      expect(await (await call(`${prefix}/task/list-by-condition`, { ids: [mine.id, mine.upstreamId] }, otherKey)).json()).toEqual([]);
      for (const [path, body] of [
        ['/submit/change', { taskId: mine.id, action: 'UPSCALE', index: 1 }],
        ['/submit/simple-change', { content: `${mine.id} U1` }],
        ['/submit/action', { taskId: mine.id, customId: `MJ::JOB::upsample::1::hash${mine.upstreamId}` }],
        ['/submit/modal', { taskId: mine.id }],
        ['/submit/video', { taskId: mine.id, index: 1, motion: 'low' }],
        ['/submit/change', { taskId: mine.upstreamId, action: 'UPSCALE', index: 1 }],
        ['/submit/simple-change', { content: `${mine.upstreamId} U1` }],
      ] as const) {
        const response = await call(`${prefix}${path}`, body, otherKey);
        expect(response.status, `${prefix}${path}`).toBe(404);
        expect(await response.json()).toMatchObject({ code: 3, result: null });
      }
    }
    expect(await used('other-key')).toBe(before);
  });
});

describe('Midjourney bad input', () => {
  it('wrong types, bad JSON, huge bodies and unknown routes: right status, MJ envelope, nothing charged', async () => {
    const before = await used();
    const rows = await taskCount();
    const cases: [string, unknown, number][] = [
      ['/mj/submit/change', { taskId: 'task_x', action: 'UPSCALE', index: '2' }, 400],
      ['/mj/submit/change', { taskId: 7, action: 'UPSCALE', index: 2 }, 400],
      ['/mj/submit/imagine', [], 400],
      ['/mj/submit/imagine', { prompt: { a: 1 } }, 400],
      ['/mj/submit/imagine', { prompt: ['a'] }, 400],
      ['/mj/submit/blend', { base64Array: [1, 2] }, 400],
      ['/mj-fast/mj/submit/imagine', { prompt: 3 }, 400],
      ['/mj/task/list-by-condition', { ids: [1] }, 400],
      ['/mj/task/list-by-condition', [], 400],
      ['/mj/submit/nothing', { prompt: 'x' }, 404],
      ['/mj-fast/mj/submit/nothing', { prompt: 'x' }, 404],
      ['/mj-slow/mj/submit/imagine', { prompt: 'x' }, 404],
    ];
    for (const [path, body, status] of cases) {
      const response = await call(path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      const error = (await response.json()) as Record<string, unknown>;
      expect(error, path).toMatchObject({ code: status === 404 ? 3 : 4, result: null });
      expect(typeof error.description).toBe('string');
      expect(typeof error.type).toBe('string');
    }
    const huge = await fetch(`${gateway.url}/mj/submit/imagine`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'x'.repeat(3 * 1024 * 1024) }) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ code: 4, result: null });
    const text = await fetch(`${gateway.url}/mj/submit/imagine`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'text/plain' }, body: 'prompt=x' });
    expect([400, 415]).toContain(text.status);
    expect(await text.json()).toMatchObject({ code: 4, result: null });
    const getSubmit = await fetch(`${gateway.url}/mj/submit/imagine`, { headers: { authorization: `Bearer ${clientKey}` } });
    expect([404, 405]).toContain(getSubmit.status);
    expect(await getSubmit.json()).toMatchObject({ result: null });
    expect(await used()).toBe(before);
    expect(await taskCount()).toBe(rows);
  });

  it('/mj/image of a non-task id, a non-mj id or an unknown id is a 404 MJ envelope', async () => {
    for (const id of ['..%2F..%2Fetc', 'task_' + 'a'.repeat(32), '1700000000000001']) {
      const response = await fetch(`${gateway.url}/mj-fast/mj/image/${id}`);
      expect(response.status, id).toBe(404);
      expect(await response.json()).toMatchObject({ code: 3, result: null });
    }
  });

  it('/mj/image never serves an upstream page as a page: an image type, nosniff and a sandbox', async () => {
    scripted.mode = 'html-image';
    try {
      const id = (await submit('/mj/submit/shorten', { prompt: 'shorten me' })).result as string;
      await poll();
      expect((await fetchTask(id)).status).toBe('SUCCESS');
      const response = await fetch(`${gateway.url}/mj/image/${id}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toContain('sandbox');
    } finally {
      scripted.mode = 'ok';
    }
  });

  it('/mj/image fetches the URL the proxy reported as given (another host, a private address), never sends it the secret, and follows no redirect', async () => {
    // docs/behaviour.md "Midjourney": the proxy is the operator's own upstream, so its URLs are not screened.
    const seen: { url: string; secret: string | undefined }[] = [];
    const imageHost = createServer((request, response) => {
      seen.push({ url: request.url ?? '', secret: request.headers['mj-api-secret'] as string | undefined });
      if (request.url === '/moved.png') {
        response.writeHead(302, { location: '/cat.png' });
        response.end();
        return;
      }
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 7]));
    });
    await new Promise<void>((resolve) => imageHost.listen(0, '127.0.0.1', resolve));
    const imageOrigin = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}`;
    scripted.mode = 'html-image';
    try {
      scripted.imageUrl = `${imageOrigin}/cat.png`;
      const id = (await submit('/mj/submit/shorten', { prompt: 'an image elsewhere' })).result as string;
      await poll();
      const image = await fetch(`${gateway.url}/mj/image/${id}`);
      expect(image.status).toBe(200);
      expect(Buffer.from(await image.arrayBuffer())).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 7]));
      expect(seen).toEqual([{ url: '/cat.png', secret: undefined }]);

      scripted.imageUrl = `${imageOrigin}/moved.png`;
      const movedId = (await submit('/mj/submit/shorten', { prompt: 'a moved image' })).result as string;
      await poll();
      const moved = await fetch(`${gateway.url}/mj/image/${movedId}`);
      expect(moved.status).toBe(502);
      expect(seen.map((request) => request.url)).toEqual(['/cat.png', '/moved.png']);
    } finally {
      scripted.mode = 'ok';
      scripted.imageUrl = undefined;
      imageHost.closeAllConnections();
      await new Promise((resolve) => imageHost.close(resolve));
    }
  });
});
