import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeKlingUpstream, type FakeKlingUpstream } from './fake-kling-upstream.js';

const accessKey = 'ak-test-kling';
const secretKey = 'sk-test-kling-secret';
let clockMs = 1_760_000_000_000;
let fake: FakeKlingUpstream;

beforeEach(async () => {
  clockMs = 1_760_000_000_000;
  fake = await startFakeKlingUpstream({ accessKey, secretKey, now: () => clockMs, videoBytes: 200_000 });
});

afterEach(async () => {
  await fake.close();
});

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const nowSeconds = () => Math.floor(clockMs / 1000);

/** Test assertions walk arbitrary JSON bodies. */
const readJson = (response: Response): Promise<any> => response.json();

const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A JWT signed by hand, as §3.3 describes the gateway's: HS256, iss = AK, exp = now + 1800, nbf = now − 5. */
function sign(overrides: { header?: Record<string, unknown>; payload?: Record<string, unknown>; secret?: string; unsigned?: boolean } = {}): string {
  const header = b64url(overrides.header ?? { alg: 'HS256', typ: 'JWT' });
  const payload = b64url(overrides.payload ?? { iss: accessKey, exp: nowSeconds() + 1800, nbf: nowSeconds() - 5 });
  if (overrides.unsigned === true) return `${header}.${payload}.`;
  const signature = createHmac('sha256', overrides.secret ?? secretKey).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

function call(method: string, path: string, body?: unknown, authorization: string | null = `Bearer ${sign()}`): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'kling-sdk/1.0' };
  if (authorization !== null) headers.authorization = authorization;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${fake.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function create(action: 'text2video' | 'image2video', body: unknown): Promise<string> {
  const response = await call('POST', `/v1/videos/${action}`, body);
  expect(response.status).toBe(200);
  const json = await readJson(response);
  expect(json).toEqual({
    code: 0,
    message: 'SUCCEED',
    request_id: expect.stringMatching(uuid),
    data: { task_id: expect.stringMatching(/^8\d{17}$/), task_status: 'submitted', task_info: expect.any(Object), created_at: clockMs, updated_at: clockMs },
  });
  return json.data.task_id as string;
}

async function expectRefused(response: Response, status: number, code: number): Promise<any> {
  expect(response.status).toBe(status);
  const json = await readJson(response);
  expect(json).toEqual({ code, message: expect.any(String), request_id: expect.stringMatching(uuid), data: null });
  return json;
}

const textBody = { model_name: 'kling-v2-6', prompt: 'a red fox running through snow', negative_prompt: 'blur', cfg_scale: 0.5, mode: 'std', aspect_ratio: '16:9', duration: '5', external_task_id: 'ext-1' };
const tinyPng = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('a good token', () => {
  it('creates, queries, advances and downloads a text2video task', async () => {
    const id = await create('text2video', textBody);
    expect(fake.tasks.get(id)).toMatchObject({ taskId: id, action: 'text2video', status: 'submitted', body: textBody, externalTaskId: 'ext-1' });
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/videos/text2video', body: textBody, jwtPayload: { iss: accessKey, exp: nowSeconds() + 1800, nbf: nowSeconds() - 5 } });
    expect(fake.requests[0]!.headers['user-agent']).toBe('kling-sdk/1.0');

    let json = await readJson(await call('GET', `/v1/videos/text2video/${id}`));
    expect(json).toEqual({
      code: 0,
      message: 'SUCCEED',
      request_id: expect.stringMatching(uuid),
      data: { task_id: id, task_status: 'submitted', task_status_msg: '', task_info: { external_task_id: 'ext-1' }, created_at: clockMs, updated_at: clockMs },
    });

    expect((await fetch(fake.videoUrlOf(id))).status).toBe(404);
    clockMs += 10_000;
    fake.advance(id, { status: 'processing' });
    json = await readJson(await call('GET', `/v1/videos/text2video/${id}`));
    expect(json.data).toMatchObject({ task_status: 'processing', updated_at: clockMs });
    expect(json.data.task_result).toBeUndefined();
    expect((await fetch(fake.videoUrlOf(id))).status).toBe(404);

    clockMs += 60_000;
    fake.advance(id, { status: 'succeed' });
    json = await readJson(await call('GET', `/v1/videos/text2video/${id}`));
    expect(json.data).toMatchObject({ task_status: 'succeed', final_unit_deduction: '1', updated_at: clockMs });
    expect(json.data.task_result).toEqual({ videos: [{ id: expect.stringMatching(uuid), url: fake.videoUrlOf(id), watermark_url: expect.stringContaining(id), duration: '5' }] });
    expect(fake.videoUrlOf(id)).toBe(`${fake.url}/files/${id}.mp4`);

    const download = await fetch(fake.videoUrlOf(id));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(200_000);
    expect(bytes.equals(fake.contentOf(id))).toBe(true);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(fake.requests.at(-1)).toMatchObject({ method: 'GET', path: `/files/${id}.mp4`, jwtPayload: undefined, body: undefined });
  });

  it('creates an image2video task queried only under its own action; pro 10 s deducts 7', async () => {
    const id = await create('image2video', { model_name: 'kling-v1-6', image: 'https://example.com/cat.png', image_tail: tinyPng, prompt: 'the cat blinks', mode: 'pro', duration: '10' });
    expect(fake.tasks.get(id)!.externalTaskId).toBeUndefined();
    await expectRefused(await call('GET', `/v1/videos/text2video/${id}`), 404, 1203);
    await expectRefused(await call('GET', '/v1/videos/image2video/899999999999999999'), 404, 1203);
    fake.advance(id, { status: 'succeed' });
    const json = await readJson(await call('GET', `/v1/videos/image2video/${id}`));
    expect(json.data).toMatchObject({ task_id: id, task_status: 'succeed', task_info: {}, final_unit_deduction: '7' });
    expect(json.data.task_result.videos[0].duration).toBe('10');
    // Raw Base64 image, with dynamic masks.
    await create('image2video', { image: tinyPng, dynamic_masks: [{ mask: tinyPng, trajectories: [{ x: 1, y: 2 }, { x: 3, y: 4 }] }] });
    expect(fake.tasks.size).toBe(2);
  });

  it('reports a failed task with its message and no video', async () => {
    const id = await create('text2video', { prompt: 'x' });
    fake.advance(id, { status: 'failed', statusMsg: 'Failure to pass the risk control system' });
    const json = await readJson(await call('GET', `/v1/videos/text2video/${id}`));
    expect(json.data).toMatchObject({ task_status: 'failed', task_status_msg: 'Failure to pass the risk control system' });
    expect(json.data.task_result).toBeUndefined();
    expect(json.data.final_unit_deduction).toBeUndefined();
    expect((await fetch(fake.videoUrlOf(id))).status).toBe(404);
    expect(() => fake.advance('800000000000000000', { status: 'succeed' })).toThrow();
  });
});

describe('auth', () => {
  const refusals: Array<[string, () => string | null, number]> = [
    ['no Authorization header', () => null, 1001],
    ['an empty bearer', () => 'Bearer ', 1001],
    ['a token without Bearer', () => sign(), 1002],
    ['not a JWT', () => 'Bearer abc.def', 1002],
    ['a wrong secret', () => `Bearer ${sign({ secret: 'other-secret' })}`, 1002],
    ['a wrong iss', () => `Bearer ${sign({ payload: { iss: 'ak-other', exp: nowSeconds() + 1800, nbf: nowSeconds() - 5 } })}`, 1002],
    ['alg none, unsigned', () => `Bearer ${sign({ header: { alg: 'none', typ: 'JWT' }, unsigned: true })}`, 1002],
    ['alg none with an HS256 signature', () => `Bearer ${sign({ header: { alg: 'none', typ: 'JWT' } })}`, 1002],
    ['alg HS512', () => `Bearer ${sign({ header: { alg: 'HS512', typ: 'JWT' } })}`, 1002],
    ['no exp', () => `Bearer ${sign({ payload: { iss: accessKey, nbf: nowSeconds() - 5 } })}`, 1002],
    ['expired', () => `Bearer ${sign({ payload: { iss: accessKey, exp: nowSeconds() - 1, nbf: nowSeconds() - 1805 } })}`, 1004],
    ['exp exactly now (no slack)', () => `Bearer ${sign({ payload: { iss: accessKey, exp: nowSeconds(), nbf: nowSeconds() - 5 } })}`, 1004],
    ['not yet valid', () => `Bearer ${sign({ payload: { iss: accessKey, exp: nowSeconds() + 1800, nbf: nowSeconds() + 1 } })}`, 1003],
  ];

  it.each(refusals)('refuses %s with 401 on create and query', async (_name, header, code) => {
    const id = await create('text2video', { prompt: 'ok' });
    const json = await expectRefused(await call('POST', '/v1/videos/text2video', { prompt: 'x' }, header()), 401, code);
    expect(json.message).toMatch(/Authori|Authentication/);
    await expectRefused(await call('GET', `/v1/videos/text2video/${id}`, undefined, header()), 401, code);
    expect(fake.tasks.size).toBe(1);
  });

  it('accepts nbf exactly now, and records the payload of a refused token', async () => {
    await create('text2video', { prompt: 'ok' });
    const edge = sign({ payload: { iss: accessKey, exp: nowSeconds() + 1, nbf: nowSeconds() } });
    expect((await call('POST', '/v1/videos/text2video', { prompt: 'x' }, `Bearer ${edge}`)).status).toBe(200);
    await call('POST', '/v1/videos/text2video', { prompt: 'x' }, `Bearer ${sign({ secret: 'nope' })}`);
    expect(fake.requests.at(-1)!.jwtPayload).toMatchObject({ iss: accessKey });
  });

  it('a token expires as the fake clock moves', async () => {
    const token = sign();
    expect((await call('POST', '/v1/videos/text2video', { prompt: 'x' }, `Bearer ${token}`)).status).toBe(200);
    clockMs += 1800 * 1000;
    await expectRefused(await call('POST', '/v1/videos/text2video', { prompt: 'x' }, `Bearer ${token}`), 401, 1004);
  });
});

describe('validation', () => {
  const invalid: Array<[string, 'text2video' | 'image2video', unknown]> = [
    ['no prompt', 'text2video', { model_name: 'kling-v1' }],
    ['an empty prompt', 'text2video', { prompt: '' }],
    ['a prompt over 2500 chars', 'text2video', { prompt: 'a'.repeat(2501) }],
    ['a negative_prompt over 2500 chars', 'text2video', { prompt: 'a', negative_prompt: 'b'.repeat(2501) }],
    ['a numeric duration', 'text2video', { prompt: 'a', duration: 5 }],
    ['duration "7"', 'text2video', { prompt: 'a', duration: '7' }],
    ['cfg_scale 1.5', 'text2video', { prompt: 'a', cfg_scale: 1.5 }],
    ['cfg_scale as a string', 'text2video', { prompt: 'a', cfg_scale: '0.5' }],
    ['mode fast', 'text2video', { prompt: 'a', mode: 'fast' }],
    ['aspect_ratio 4:3', 'text2video', { prompt: 'a', aspect_ratio: '4:3' }],
    ['camera_control with two moves', 'text2video', { prompt: 'a', camera_control: { type: 'simple', config: { pan: 2, zoom: 3 } } }],
    ['camera_control out of range', 'text2video', { prompt: 'a', camera_control: { type: 'simple', config: { zoom: 11 } } }],
    ['camera_control simple without config', 'text2video', { prompt: 'a', camera_control: { type: 'simple' } }],
    ['a non-string external_task_id', 'text2video', { prompt: 'a', external_task_id: 7 }],
    ['no image', 'image2video', { prompt: 'a' }],
    ['a data: URI image', 'image2video', { image: `data:image/png;base64,${tinyPng}` }],
    ['an image that is neither URL nor Base64', 'image2video', { image: 'not an image!' }],
    ['a data: URI image_tail', 'image2video', { image: tinyPng, image_tail: `data:image/png;base64,${tinyPng}` }],
    ['dynamic_masks without trajectories', 'image2video', { image: tinyPng, dynamic_masks: [{ mask: tinyPng }] }],
    ['a JSON array', 'text2video', ['prompt']],
  ];

  it.each(invalid)('refuses %s with 400 code 1201', async (_name, action, body) => {
    const json = await expectRefused(await call('POST', `/v1/videos/${action}`, body), 400, 1201);
    expect(json.message.length).toBeGreaterThan(0);
    expect(fake.tasks.size).toBe(0);
  });

  it('refuses a body that is not JSON with 1200, and unknown routes with 404 1203', async () => {
    const response = await fetch(`${fake.url}/v1/videos/text2video`, { method: 'POST', headers: { authorization: `Bearer ${sign()}`, 'content-type': 'application/json' }, body: '{nope' });
    await expectRefused(response, 400, 1200);
    await expectRefused(await call('GET', '/v1/videos/omni-video/1'), 404, 1203);
    await expectRefused(await call('DELETE', '/v1/videos/text2video/1'), 404, 1203);
  });

  it('accepts a full text2video body, a camera move, extra fields, and aspect_ratio on image2video (ignored)', async () => {
    await create('text2video', { ...textBody, model: 'kling-v2-6', callback_url: 'https://example.com/cb', camera_control: { type: 'simple', config: { horizontal: 0, vertical: 0, pan: 0, tilt: 0, roll: 0, zoom: -4 } } });
    await create('text2video', { prompt: 'p'.repeat(2500), camera_control: { type: 'forward_up' } });
    await create('image2video', { image: 'https://example.com/a.jpg', aspect_ratio: '16:9' });
    expect(fake.tasks.size).toBe(3);
    expect(new Set(fake.tasks.keys()).size).toBe(3);
  });
});

describe('faults', () => {
  it('answers the next create with a queued fault after auth, once', async () => {
    fake.enqueueFault({ route: 'create', status: 500 });
    // An unauthenticated call does not take the fault.
    await expectRefused(await call('POST', '/v1/videos/text2video', { prompt: 'a' }, null), 401, 1001);
    await expectRefused(await call('POST', '/v1/videos/text2video', { prompt: 'a' }), 500, 5000);
    await create('text2video', { prompt: 'a' });
    fake.enqueueFault({ route: 'create', status: 429 });
    await expectRefused(await call('POST', '/v1/videos/image2video', { image: tinyPng }), 429, 1302);
    fake.enqueueFault({ route: 'create', status: 200, body: { code: 1303, message: 'parallel task over resource pack limit', request_id: 'r-1', data: null } });
    const response = await call('POST', '/v1/videos/text2video', { prompt: 'a' });
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ code: 1303, message: 'parallel task over resource pack limit', request_id: 'r-1', data: null });
    expect(fake.tasks.size).toBe(1);
  });

  it('answers the next query with a queued fault, leaving creates alone', async () => {
    const id = await create('text2video', { prompt: 'a' });
    fake.enqueueFault({ route: 'query', status: 503, body: { code: 5001, message: 'server unavailable', request_id: 'r-2', data: null } });
    await create('text2video', { prompt: 'b' });
    let response = await call('GET', `/v1/videos/text2video/${id}`);
    expect(response.status).toBe(503);
    expect((await readJson(response)).code).toBe(5001);
    response = await call('GET', `/v1/videos/text2video/${id}`);
    expect(response.status).toBe(200);
    expect((await readJson(response)).data.task_status).toBe('submitted');
  });
});

describe('defaults', () => {
  it('serves 1.5 MiB (+3 bytes) by default, on the real clock', async () => {
    const other = await startFakeKlingUpstream({ accessKey, secretKey });
    try {
      const seconds = Math.floor(Date.now() / 1000);
      const token = sign({ payload: { iss: accessKey, exp: seconds + 1800, nbf: seconds - 5 } });
      const response = await fetch(`${other.url}/v1/videos/text2video`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'a' }) });
      const id = (await readJson(response)).data.task_id as string;
      other.advance(id, { status: 'succeed' });
      const bytes = Buffer.from(await (await fetch(other.videoUrlOf(id))).arrayBuffer());
      expect(bytes.length).toBe(1.5 * 1024 * 1024 + 3);
      expect(bytes.equals(other.contentOf(id))).toBe(true);
    } finally {
      await other.close();
    }
  });
});
