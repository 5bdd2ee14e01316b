import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSunoUpstream, type FakeSunoUpstream } from './fake-suno-upstream.js';

let fake: FakeSunoUpstream;

beforeEach(async () => {
  fake = await startFakeSunoUpstream({ expectedKeys: ['sk-suno-a', 'sk-suno-b'] });
});

afterEach(async () => {
  await fake.close();
});

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/;

/** Test assertions walk arbitrary JSON bodies. */
const readJson = (response: Response): Promise<any> => response.json();

function call(method: string, path: string, body?: unknown, key = 'sk-suno-a'): Promise<Response> {
  return fetch(`${fake.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function submit(action: string, body: unknown, key = 'sk-suno-a'): Promise<string> {
  const response = await call('POST', `/suno/submit/${action}`, body, key);
  expect(response.status).toBe(200);
  const json = await readJson(response);
  expect(json).toEqual({ code: 'success', message: '', data: expect.stringMatching(uuid) });
  return json.data as string;
}

const musicBody = { prompt: '[Verse]\nNeon rain on empty streets', mv: 'chirp-v3-5', title: 'Neon Rain', tags: 'synthwave', make_instrumental: false };

describe('submit', () => {
  it('creates a SUBMITTED task owned by the key and records the request', async () => {
    const id = await submit('MUSIC', musicBody);
    const task = fake.tasks.get(id)!;
    expect(task).toMatchObject({ taskId: id, action: 'MUSIC', status: 'SUBMITTED', progress: '0%', failReason: '', key: 'sk-suno-a', body: musicBody, startTime: 0, finishTime: 0 });
    expect(task.submitTime).toBeGreaterThan(1_600_000_000);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/suno/submit/MUSIC', body: musicBody });
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-suno-a');
    expect(await submit('LYRICS', { prompt: 'a song about tea' })).not.toBe(id);
  });

  it('validates the action and the prompt fields', async () => {
    let response = await call('POST', '/suno/submit/concat', { prompt: 'x' });
    expect(response.status).toBe(400);
    expect((await readJson(response)).code).toBe('invalid_action');
    response = await call('POST', '/suno/submit/LYRICS', { gpt_description_prompt: 'x' });
    expect(response.status).toBe(400);
    expect(await readJson(response)).toEqual({ code: 'invalid_request', message: expect.any(String), data: null });
    response = await call('POST', '/suno/submit/MUSIC', { make_instrumental: true });
    expect(response.status).toBe(400);
    expect((await readJson(response)).code).toBe('invalid_request');
    await submit('MUSIC', { gpt_description_prompt: 'a calm piano piece', make_instrumental: true });
    expect(fake.tasks.size).toBe(1);
  });

  it('refuses a key it does not know', async () => {
    const response = await call('POST', '/suno/submit/MUSIC', musicBody, 'sk-wrong');
    expect(response.status).toBe(401);
    expect(await readJson(response)).toEqual({ code: 'unauthorized', message: 'invalid token', data: null });
    const bare = await fetch(`${fake.url}/suno/fetch`, { method: 'POST', body: '{"ids":[]}' });
    expect(bare.status).toBe(401);
    expect(fake.tasks.size).toBe(0);
  });
});

describe('fetch', () => {
  it('answers one task, a batch of the caller’s tasks, and task_not_exist', async () => {
    const music = await submit('MUSIC', musicBody);
    const lyrics = await submit('LYRICS', { prompt: 'tea' });
    const other = await submit('MUSIC', musicBody, 'sk-suno-b');

    const one = await readJson(await call('GET', `/suno/fetch/${music}`));
    expect(one).toEqual({
      code: 'success',
      message: '',
      data: { task_id: music, action: 'MUSIC', status: 'SUBMITTED', fail_reason: '', submit_time: expect.any(Number), start_time: 0, finish_time: 0, progress: '0%', data: [] },
    });

    const batch = await readJson(await call('POST', '/suno/fetch', { ids: [lyrics, 'nope', music, other] }));
    expect(batch.code).toBe('success');
    expect(batch.data.map((record: any) => record.task_id)).toEqual([lyrics, music]);
    expect(batch.data[0]).toMatchObject({ action: 'LYRICS', status: 'SUBMITTED', data: null });
    expect(await readJson(await call('POST', '/suno/fetch', { ids: [] }))).toEqual({ code: 'success', message: '', data: [] });

    for (const id of ['nope', other]) {
      const missing = await call('GET', `/suno/fetch/${id}`);
      expect(missing.status).toBe(400);
      expect(await readJson(missing)).toEqual({ code: 'task_not_exist', message: 'task_not_exist', data: null });
    }
  });

  it('shows streaming clips in progress and complete clips with audio on SUCCESS', async () => {
    const id = await submit('MUSIC', musicBody);
    fake.advance(id, { status: 'IN_PROGRESS', progress: '40%' });
    let record = (await readJson(await call('GET', `/suno/fetch/${id}`))).data;
    expect(record).toMatchObject({ status: 'IN_PROGRESS', progress: '40%', finish_time: 0 });
    expect(record.start_time).toBeGreaterThan(0);
    expect(record.data).toHaveLength(2);
    for (const clip of record.data) expect(clip).toMatchObject({ status: 'streaming', audio_url: '' });

    fake.advance(id, { status: 'SUCCESS' });
    record = (await readJson(await call('POST', '/suno/fetch', { ids: [id] }))).data[0];
    expect(record).toMatchObject({ status: 'SUCCESS', progress: '100%', fail_reason: '' });
    expect(record.finish_time).toBeGreaterThanOrEqual(record.start_time);
    expect(record.data).toHaveLength(2);
    const [first, second] = record.data;
    expect(first.id).not.toBe(second.id);
    expect(first).toEqual({
      id: expect.stringMatching(uuid),
      title: 'Neon Rain',
      status: 'complete',
      audio_url: `${fake.url}/files/${first.id}.mp3`,
      image_url: expect.any(String),
      image_large_url: expect.any(String),
      video_url: expect.any(String),
      model_name: 'chirp-v3',
      major_model_version: 'v3',
      text: musicBody.prompt,
      metadata: { tags: 'synthwave', prompt: musicBody.prompt, gpt_description_prompt: '', duration: expect.any(Number), error_type: null, error_message: null },
    });

    const audio = await fetch(first.audio_url);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = Buffer.from(await audio.arrayBuffer());
    expect(bytes.equals(fake.audioOf(first.id))).toBe(true);
    expect(bytes.subarray(0, 3).toString('latin1')).toBe('ID3');
    expect((await fetch(`${fake.url}/files/unknown.mp3`)).status).toBe(404);
  });

  it('completes lyrics and records a failure', async () => {
    const lyrics = await submit('LYRICS', { prompt: 'a song about tea' });
    fake.advance(lyrics, { status: 'SUCCESS' });
    const record = (await readJson(await call('GET', `/suno/fetch/${lyrics}`))).data;
    expect(record.data).toEqual({ id: expect.any(String), text: expect.stringContaining('a song about tea'), title: expect.any(String), status: 'complete' });

    const music = await submit('MUSIC', musicBody);
    fake.advance(music, { status: 'FAILURE', failReason: 'content policy' });
    const failed = (await readJson(await call('GET', `/suno/fetch/${music}`))).data;
    expect(failed).toMatchObject({ status: 'FAILURE', fail_reason: 'content policy', start_time: 0, data: [] });
    expect(failed.finish_time).toBeGreaterThan(0);
  });
});

describe('faults', () => {
  it('answers a queued status or body once per route', async () => {
    fake.enqueueFault({ route: 'submit', status: 500 });
    fake.enqueueFault({ route: 'submit', status: 200, body: { code: 'fail', message: 'busy', data: null } });
    fake.enqueueFault({ route: 'fetch', status: 429, body: { code: 'rate_limited', message: 'slow down', data: null } });

    let response = await call('POST', '/suno/submit/MUSIC', musicBody);
    expect(response.status).toBe(500);
    expect(await readJson(response)).toEqual({ code: 'upstream_error', message: 'fake failure', data: null });
    response = await call('POST', '/suno/submit/MUSIC', musicBody);
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ code: 'fail', message: 'busy', data: null });
    expect(fake.tasks.size).toBe(0);

    const id = await submit('MUSIC', musicBody);
    response = await call('GET', `/suno/fetch/${id}`);
    expect(response.status).toBe(429);
    expect((await readJson(response)).code).toBe('rate_limited');
    response = await call('POST', '/suno/fetch', { ids: [id] });
    expect(response.status).toBe(200);
    expect((await readJson(response)).data).toHaveLength(1);
  });
});
