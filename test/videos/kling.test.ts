/**
 * Kling (protocols.md §3) through the real gateway: a `kling` channel in front of the fake Kling API
 * (test/fakes/fake-kling-upstream.ts), which verifies every call's JWT. Kling's native routes and the
 * unified route both reach it. Charges are computed here from docs/behaviour.md "Video".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeKlingUpstream, type FakeKlingUpstream } from '../fakes/fake-kling-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { preferredDialect } from './videos-fixture.js';
import { taskSuiteClient } from '../support/task-suite-client.js';

const accessKey = 'AKkling0000000000000000';
const secretKey = 'SKkling0000000000000000';
const clientKey = `sk-${'g'.repeat(48)}`;
const quotaPerUnit = 500_000;
const perSecond = 0.14;
/** `kling-v2-6@pro`: Kling's pro mode, priced apart (docs/behaviour.md "Video"). */
const proPerSecond = 0.245;
const charge = (seconds: number, rate = perSecond) => Math.round(rate * seconds * quotaPerUnit);

let kling: FakeKlingUpstream;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  kling = await startFakeKlingUpstream({ accessKey, secretKey, now: () => clock });
  gateway = await startTestGateway({
    dialect: preferredDialect(),
    now: () => clock,
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      prices: { 'kling-v2-6': { per_second: perSecond }, 'kling-v2-6@pro': { per_second: proPerSecond } },
      channels: [{ name: 'kling', type: 'kling', base_url: kling.url, key: `${accessKey}|${secretKey}`, models: ['kling-v2-6'], groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: {} }],
      users: [{ username: 'kl', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'kl-key', user: 'kl', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway.close();
  await kling.close();
});

const { used, call, poll } = taskSuiteClient({ gateway: () => gateway, key: clientKey, tokenName: 'kl-key', tick: () => {
    clock += 1;
  } });
const taskRow = (publicId: string) => gateway.gateway.services.database.db.selectFrom('tasks').selectAll().where('public_id', '=', publicId).executeTakeFirstOrThrow();
const creates = () => kling.requests.filter((request) => request.method === 'POST');

describe('a Kling video task', () => {
  it('takes Kling’s native body, passes its own fields on with a JWT, and answers the OpenAI video object', async () => {
    const before = await used();
    const response = await call('/kling/v1/videos/text2video', {
      model_name: 'kling-v2-6',
      prompt: 'A fox running through snow',
      negative_prompt: 'blur',
      cfg_scale: 0.7,
      mode: 'pro',
      aspect_ratio: '9:16',
      duration: '10',
      camera_control: { type: 'simple', config: { zoom: 5 } },
      callback_url: 'https://client.example/hook',
    });
    expect(response.status).toBe(200);
    const video = (await response.json()) as { id: string; object: string; status: string; seconds: string };
    expect(video).toMatchObject({ object: 'video', status: 'queued', seconds: '10' });
    // `mode: pro` is priced as `kling-v2-6@pro`.
    expect((await used()) - before).toBe(charge(10, proPerSecond));
    const sent = creates().at(-1);
    expect(sent?.path).toBe('/v1/videos/text2video');
    expect(sent?.jwtPayload).toMatchObject({ iss: accessKey });
    // Kling would call the client with its own ids: callback_url is not sent.
    expect(sent?.body).toEqual({ model_name: 'kling-v2-6', prompt: 'A fox running through snow', negative_prompt: 'blur', cfg_scale: 0.7, mode: 'pro', aspect_ratio: '9:16', duration: '10', camera_control: { type: 'simple', config: { zoom: 5 } } });

    const row = await taskRow(video.id);
    expect(row.upstream_id).toMatch(/^text2video\//);
    const taskId = (row.upstream_id as string).slice('text2video/'.length);
    kling.advance(taskId, { status: 'processing' });
    await poll();
    expect(await (await call(`/kling/v1/videos/text2video/${video.id}`)).json()).toMatchObject({ code: 'success', data: { task_id: video.id, status: 'IN_PROGRESS' } });
    kling.advance(taskId, { status: 'succeed' });
    await poll();
    expect(((await (await call(`/v1/videos/${video.id}`)).json()) as { status: string }).status).toBe('completed');
    const content = await call(`/v1/videos/${video.id}/content`);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await content.arrayBuffer()).equals(kling.contentOf(taskId))).toBe(true);
  });

  it('prices the std mode (and no mode) at the model’s own price, pro at its own', async () => {
    for (const [body, rate] of [
      [{ model_name: 'kling-v2-6', prompt: 'std', duration: '5', mode: 'std' }, perSecond],
      [{ model_name: 'kling-v2-6', prompt: 'none', duration: '5' }, perSecond],
      [{ model_name: 'kling-v2-6', prompt: 'pro', duration: '5', mode: 'pro' }, proPerSecond],
    ] as const) {
      const before = await used();
      expect((await call('/kling/v1/videos/text2video', body)).status).toBe(200);
      expect((await used()) - before, JSON.stringify(body)).toBe(charge(5, rate));
    }
    const before = await used();
    expect((await call('/v1/video/generations', { model: 'kling-v2-6', prompt: 'unified pro', seconds: 5, metadata: { mode: 'pro' } })).status).toBe(200);
    expect((await used()) - before).toBe(charge(5, proPerSecond));
  });

  it('sends an image task to image2video, the image without its data: prefix, from the unified route', async () => {
    const response = await call('/v1/video/generations', { model: 'kling-v2-6', prompt: 'Bring it to life', image: 'data:image/png;base64,iVBORw0KGgo=', size: '1280x720' });
    expect(response.status).toBe(200);
    const sent = creates().at(-1);
    expect(sent?.path).toBe('/v1/videos/image2video');
    expect(sent?.body).toEqual({ model_name: 'kling-v2-6', prompt: 'Bring it to life', duration: '5', image: 'iVBORw0KGgo=' });
  });

  it('refunds a task Kling fails, once', async () => {
    const before = await used();
    const video = (await (await call('/v1/video/generations', { model: 'kling-v2-6', prompt: 'doomed', seconds: 5 })).json()) as { id: string };
    const taskId = ((await taskRow(video.id)).upstream_id as string).split('/')[1] as string;
    kling.advance(taskId, { status: 'failed', statusMsg: 'Risk control triggered' });
    await poll();
    await poll();
    expect(await (await call(`/v1/videos/${video.id}`)).json()).toMatchObject({ status: 'failed', error: { message: 'Risk control triggered' } });
    expect(await used()).toBe(before);
  });

  it('refuses a length Kling cannot make, and Kling’s own refusals, at no charge', async () => {
    const before = await used();
    const sentBefore = creates().length;
    const seven = await call('/kling/v1/videos/text2video', { model_name: 'kling-v2-6', prompt: 'x', duration: '7' });
    expect(seven.status).toBe(400);
    expect(await seven.json()).toMatchObject({ code: 'invalid_request', data: null });
    expect(creates().length).toBe(sentBefore);
    kling.enqueueFault({ route: 'create', status: 400, body: { code: 1201, message: 'prompt is too long', request_id: 'r', data: null } });
    const refused = await call('/kling/v1/videos/text2video', { model_name: 'kling-v2-6', prompt: 'y' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toContain('prompt is too long');
    expect(await used()).toBe(before);
  });
});

describe('the Kling channel test', () => {
  it('lists one task with a JWT, and fails a key Kling refuses', async () => {
    const channel = gateway.gateway.services.catalog.snapshot.channels.find((candidate) => candidate.name === 'kling');
    const admin = (path: string, method: string, body?: unknown) =>
      fetch(`${gateway.url}/api/admin/channels/${channel?.id}${path}`, { method, headers: { authorization: `Bearer ${gateway.adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    expect(await (await admin('/test', 'POST')).json()).toMatchObject({ success: true });
    expect(kling.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/videos/text2video?pageNum=1&pageSize=1', jwtPayload: { iss: accessKey } });
    // A key of the wrong shape is refused by the admin API; a well-formed wrong one fails the test.
    expect((await admin('', 'PUT', { key: 'no-bar' })).status).toBe(400);
    expect((await admin('', 'PUT', { key: `${accessKey}|wrong-secret` })).status).toBe(200);
    expect(await (await admin('/test', 'POST')).json()).toMatchObject({ success: false, data: { status: 401 } });
    await admin('', 'PUT', { key: `${accessKey}|${secretKey}` });
  });
});
