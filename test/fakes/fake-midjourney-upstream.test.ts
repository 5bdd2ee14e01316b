import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeMidjourneyUpstream, type FakeMidjourneyUpstream } from './fake-midjourney-upstream.js';

let fake: FakeMidjourneyUpstream;

beforeEach(async () => {
  fake = await startFakeMidjourneyUpstream({ expectedKeys: ['mj-secret-a', 'mj-secret-b'] });
});

afterEach(async () => {
  await fake.close();
});

/** Test assertions walk arbitrary JSON bodies. */
const readJson = (response: Response): Promise<any> => response.json();

/** `key: null` sends no secret. */
function call(method: string, path: string, body?: unknown, key: string | null = 'mj-secret-a'): Promise<Response> {
  return fetch(`${fake.url}${path}`, {
    method,
    headers: { ...(key === null ? {} : { 'mj-api-secret': key }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** A submit answering HTTP 200; returns the MJ body. */
async function submitRaw(path: string, body: unknown, key = 'mj-secret-a'): Promise<any> {
  const response = await call('POST', path, body, key);
  expect(response.status).toBe(200);
  return readJson(response);
}

/** A submit that must answer code 1; returns the new task id. */
async function submit(path: string, body: unknown, key = 'mj-secret-a'): Promise<string> {
  const json = await submitRaw(path, body, key);
  expect(json).toEqual({ code: 1, description: 'Submit success', result: expect.stringMatching(/^\d{16}$/), properties: { discordInstanceId: 'instance-secret-1', discordChannelId: 'chan-secret' } });
  return json.result as string;
}

async function list(ids: string[], key = 'mj-secret-a'): Promise<any[]> {
  const response = await call('POST', '/mj/task/list-by-condition', { ids }, key);
  expect(response.status).toBe(200);
  return readJson(response);
}

/** An IMAGINE task advanced to SUCCESS. */
async function finishedImagine(prompt = 'a red fox in snow', key = 'mj-secret-a'): Promise<string> {
  const id = await submit('/mj/submit/imagine', { prompt }, key);
  fake.advance(id, { status: 'SUCCESS' });
  return id;
}

const png = 'data:image/png;base64,iVBORw0KGgo=';

describe('auth', () => {
  it('answers 401 with no body without the secret or with a wrong one, and records both', async () => {
    for (const key of [null, 'mj-wrong']) {
      const response = await call('POST', '/mj/submit/imagine', { prompt: 'cat' }, key);
      expect(response.status).toBe(401);
      expect(await response.text()).toBe('');
      const listed = await call('POST', '/mj/task/list-by-condition', { ids: [] }, key);
      expect(listed.status).toBe(401);
      expect(await listed.text()).toBe('');
    }
    const bearer = await fetch(`${fake.url}/mj/task/1/fetch`, { headers: { authorization: 'Bearer mj-secret-a' } });
    expect(bearer.status).toBe(401);
    expect(fake.tasks.size).toBe(0);
    expect(fake.requests).toHaveLength(5);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/mj/submit/imagine', body: { prompt: 'cat' } });
  });

  it('answers 404 for an unknown route', async () => {
    expect((await call('POST', '/mj/submit/nope', { prompt: 'x' })).status).toBe(404);
    expect((await call('GET', '/mj/submit/imagine')).status).toBe(404);
  });
});

describe('imagine and the task object', () => {
  it('creates a SUBMITTED task owned by the key that list-by-condition shows', async () => {
    const before = Date.now();
    const body = { prompt: 'a red fox in snow --ar 16:9', state: 'my-state', notifyHook: 'https://hook.example/mj', botType: 'MID_JOURNEY' };
    const id = await submit('/mj/submit/imagine', body);
    expect(id).toBe('1700000000000001');
    expect(await submit('/mj/submit/imagine', { prompt: 'second' })).toBe('1700000000000002');
    const task = fake.tasks.get(id)!;
    expect(task).toMatchObject({ key: 'mj-secret-a', body, action: 'IMAGINE', status: 'SUBMITTED' });
    expect(fake.requests[0]!.headers['mj-api-secret']).toBe('mj-secret-a');

    const [record, ...rest] = await list([id, 'unknown-id']);
    expect(rest).toEqual([]);
    expect(record).toEqual({
      id,
      action: 'IMAGINE',
      status: 'SUBMITTED',
      progress: '0%',
      prompt: body.prompt,
      promptEn: body.prompt,
      description: `/imagine ${body.prompt}`,
      state: 'my-state',
      submitTime: expect.any(Number),
      startTime: 0,
      finishTime: 0,
      imageUrl: '',
      failReason: '',
      buttons: [],
      properties: { finalPrompt: body.prompt, discordInstanceId: 'instance-secret-1', messageId: `msg${id}`, messageHash: `hash${id}`, notifyHook: 'https://hook.example/mj' },
    });
    expect(record.submitTime).toBeGreaterThanOrEqual(before);
    expect(await list([])).toEqual([]);

    const fetched = await call('GET', `/mj/task/${id}/fetch`);
    expect(fetched.status).toBe(200);
    expect(await readJson(fetched)).toEqual(record);
  });

  it('refuses an imagine without a prompt', async () => {
    expect(await submitRaw('/mj/submit/imagine', { prompt: '  ' })).toEqual({ code: 4, description: 'prompt is required', result: null });
    expect(await submitRaw('/mj/submit/imagine', { base64Array: [png] })).toMatchObject({ code: 4 });
    expect(fake.tasks.size).toBe(0);
  });

  it('advances through IN_PROGRESS to SUCCESS with image and buttons, and records failures', async () => {
    const id = await submit('/mj/submit/imagine', { prompt: 'fox' });
    fake.advance(id, { status: 'IN_PROGRESS', progress: '45%' });
    let [record] = await list([id]);
    expect(record).toMatchObject({ status: 'IN_PROGRESS', progress: '45%', finishTime: 0, imageUrl: '', buttons: [] });
    expect(record.startTime).toBeGreaterThanOrEqual(record.submitTime);

    fake.advance(id, { status: 'SUCCESS' });
    [record] = await list([id]);
    expect(record).toMatchObject({ status: 'SUCCESS', progress: '100%', imageUrl: `${fake.url}/images/${id}.png` });
    expect(record.finishTime).toBeGreaterThanOrEqual(record.startTime);
    expect(record.buttons.map((button: any) => button.customId)).toEqual([
      `MJ::JOB::upsample::1::hash${id}`,
      `MJ::JOB::upsample::2::hash${id}`,
      `MJ::JOB::upsample::3::hash${id}`,
      `MJ::JOB::upsample::4::hash${id}`,
      `MJ::JOB::reroll::0::hash${id}::SOLO`,
      `MJ::JOB::variation::1::hash${id}`,
      `MJ::JOB::variation::2::hash${id}`,
      `MJ::JOB::variation::3::hash${id}`,
      `MJ::JOB::variation::4::hash${id}`,
    ]);
    expect(record.buttons[0]).toEqual({ customId: `MJ::JOB::upsample::1::hash${id}`, emoji: '', label: 'U1', type: 2, style: 2 });

    const failed = await submit('/mj/submit/imagine', { prompt: 'bad' });
    fake.advance(failed, { status: 'FAILURE', failReason: 'banned word' });
    const [failure] = await list([failed]);
    expect(failure).toMatchObject({ status: 'FAILURE', failReason: 'banned word', imageUrl: '', startTime: 0 });
    expect(failure.finishTime).toBeGreaterThan(0);
    expect(() => fake.advance('999', { status: 'SUCCESS' })).toThrow();
  });
});

describe('change, simple-change and action', () => {
  it('upscales U1 of a finished grid and refuses bad changes', async () => {
    const grid = await finishedImagine('fox');
    const upscale = await submit('/mj/submit/change', { taskId: grid, action: 'UPSCALE', index: 1 });
    expect(fake.tasks.get(upscale)).toMatchObject({ action: 'UPSCALE', status: 'SUBMITTED', prompt: 'fox', description: `/up ${grid} U1` });
    fake.advance(upscale, { status: 'SUCCESS' });
    expect(fake.tasks.get(upscale)!.buttons).toEqual([]);

    const variation = await submit('/mj/submit/simple-change', { content: `${grid} V3` });
    expect(fake.tasks.get(variation)).toMatchObject({ action: 'VARIATION', description: `/up ${grid} V3` });
    const reroll = await submit('/mj/submit/simple-change', { content: `${grid} R` });
    expect(fake.tasks.get(reroll)).toMatchObject({ action: 'REROLL', description: `/up ${grid} R` });

    expect(await submitRaw('/mj/submit/change', { taskId: grid, action: 'UPSCALE', index: 5 })).toEqual({ code: 4, description: 'validation error', result: null });
    expect(await submitRaw('/mj/submit/change', { taskId: grid, action: 'ZOOM', index: 1 })).toMatchObject({ code: 4 });
    expect(await submitRaw('/mj/submit/change', { taskId: '42', action: 'UPSCALE', index: 1 })).toEqual({ code: 3, description: 'task not found', result: null });
    expect(await submitRaw('/mj/submit/change', { taskId: variation, action: 'UPSCALE', index: 1 })).toMatchObject({ code: 4, description: 'task status not success' });
    expect(await submitRaw('/mj/submit/simple-change', { content: `${grid} U9` })).toMatchObject({ code: 4 });
  });

  it('derives the action from customId', async () => {
    const grid = await finishedImagine();
    const upscale = await submit('/mj/submit/action', { taskId: grid, customId: `MJ::JOB::upsample::2::hash${grid}` });
    expect(fake.tasks.get(upscale)).toMatchObject({ action: 'UPSCALE', description: `/up ${grid} U2` });
    const pan = await submit('/mj/submit/action', { taskId: grid, customId: `MJ::JOB::pan_left::1::hash${grid}::SOLO` });
    expect(fake.tasks.get(pan)!.action).toBe('PAN');
    const zoom = await submit('/mj/submit/action', { taskId: grid, customId: `MJ::Outpaint::50::1::hash${grid}::SOLO` });
    expect(fake.tasks.get(zoom)!.action).toBe('ZOOM');
    const high = await submit('/mj/submit/action', { taskId: grid, customId: `MJ::JOB::high_variation::1::hash${grid}::SOLO` });
    expect(fake.tasks.get(high)!.action).toBe('HIGH_VARIATION');
    expect(await submitRaw('/mj/submit/action', { taskId: grid, customId: 'MJ::JOB::dance::1::x' })).toMatchObject({ code: 4 });
    expect(await submitRaw('/mj/submit/action', { taskId: grid })).toMatchObject({ code: 4 });
  });

  it('keeps each key’s tasks to itself', async () => {
    const mine = await finishedImagine('mine');
    const theirs = await finishedImagine('theirs', 'mj-secret-b');
    expect((await list([mine, theirs])).map((task) => task.id)).toEqual([mine]);
    expect((await list([mine, theirs], 'mj-secret-b')).map((task) => task.id)).toEqual([theirs]);
    const hidden = await call('GET', `/mj/task/${theirs}/fetch`);
    expect(hidden.status).toBe(404);
    expect(await hidden.text()).toBe('');
    expect(await submitRaw('/mj/submit/change', { taskId: theirs, action: 'UPSCALE', index: 1 })).toMatchObject({ code: 3 });
    expect(await submitRaw('/mj/submit/action', { taskId: theirs, customId: `MJ::JOB::upsample::1::hash${theirs}` })).toMatchObject({ code: 3 });
    expect(await readJson(await call('GET', `/mj/task/${theirs}/image-seed`))).toMatchObject({ code: 3, result: null });
    expect(fake.tasks.get(theirs)!.key).toBe('mj-secret-b');
  });
});

describe('modal and queued answers', () => {
  it('answers 21 for an Inpaint action, then modal submits the same task', async () => {
    const grid = await finishedImagine('fox');
    const upscale = await submit('/mj/submit/change', { taskId: grid, action: 'UPSCALE', index: 1 });
    fake.advance(upscale, { status: 'SUCCESS' });

    const answer = await submitRaw('/mj/submit/action', { taskId: upscale, customId: `MJ::Inpaint::1::hash${upscale}::SOLO` });
    expect(answer).toEqual({ code: 21, description: 'Waiting for window confirm', result: expect.stringMatching(/^\d{16}$/), properties: { finalPrompt: 'fox', remix: true } });
    const id = answer.result as string;
    expect((await list([id]))[0]).toMatchObject({ status: 'MODAL', action: 'INPAINT' });

    const confirmed = await submitRaw('/mj/submit/modal', { taskId: id, prompt: 'fox with a hat', maskBase64: png });
    expect(confirmed).toEqual({ code: 1, description: 'Submit success', result: id, properties: { discordInstanceId: 'instance-secret-1', discordChannelId: 'chan-secret' } });
    expect((await list([id]))[0]).toMatchObject({ id, status: 'SUBMITTED', action: 'INPAINT', prompt: 'fox with a hat' });
    expect(fake.tasks.size).toBe(3);

    expect(await submitRaw('/mj/submit/modal', { taskId: id })).toMatchObject({ code: 4 });
    expect(await submitRaw('/mj/submit/modal', { taskId: '123' })).toMatchObject({ code: 3 });
    const zoom = await submitRaw('/mj/submit/action', { taskId: upscale, customId: `MJ::CustomZoom::hash${upscale}` });
    expect(zoom.code).toBe(21);
    expect(fake.tasks.get(zoom.result)).toMatchObject({ status: 'MODAL', action: 'CUSTOM_ZOOM' });
  });

  it('answers 21 once when asked, creating a MODAL task of the submitted action', async () => {
    fake.answerNextWithModal();
    const answer = await submitRaw('/mj/submit/imagine', { prompt: 'remix me' });
    expect(answer).toEqual({ code: 21, description: 'Waiting for window confirm', result: expect.any(String), properties: { finalPrompt: 'remix me', remix: true } });
    expect(fake.tasks.get(answer.result)).toMatchObject({ status: 'MODAL', action: 'IMAGINE' });
    await submit('/mj/submit/imagine', { prompt: 'normal again' });
  });

  it('answers 22 once when asked, with the task SUBMITTED', async () => {
    fake.answerNextQueued();
    const answer = await submitRaw('/mj/submit/imagine', { prompt: 'busy' });
    expect(answer).toEqual({ code: 22, description: expect.any(String), result: expect.any(String), properties: { numberOfQueues: 2, discordInstanceId: 'instance-secret-1' } });
    expect(fake.tasks.get(answer.result)!.status).toBe('SUBMITTED');
    await submit('/mj/submit/imagine', { prompt: 'normal again' });
  });
});

describe('other submits', () => {
  it('validates describe, blend, swap, shorten, edits and takes video as a pass-through', async () => {
    const describeId = await submit('/mj/submit/describe', { base64: png });
    expect(fake.tasks.get(describeId)).toMatchObject({ action: 'DESCRIBE', description: `/describe ${describeId}` });
    await submit('/mj/submit/describe', { base64Array: [png] });
    expect(await submitRaw('/mj/submit/describe', { base64: 'not-a-data-uri' })).toMatchObject({ code: 4 });

    const blend = await submit('/mj/submit/blend', { base64Array: [png, png], dimensions: 'LANDSCAPE' });
    expect(fake.tasks.get(blend)!.action).toBe('BLEND');
    fake.advance(blend, { status: 'SUCCESS' });
    expect(fake.tasks.get(blend)!.buttons).toHaveLength(9);
    expect(await submitRaw('/mj/submit/blend', { base64Array: [png] })).toMatchObject({ code: 4 });
    expect(await submitRaw('/mj/submit/blend', { base64Array: [png, png, png, png, png, png] })).toMatchObject({ code: 4 });

    expect(fake.tasks.get(await submit('/mj/insight-face/swap', { sourceBase64: png, targetBase64: png }))!.action).toBe('SWAP_FACE');
    expect(await submitRaw('/mj/insight-face/swap', { sourceBase64: png })).toMatchObject({ code: 4 });
    expect(fake.tasks.get(await submit('/mj/submit/shorten', { prompt: 'a very long prompt' }))!.action).toBe('SHORTEN');
    expect(fake.tasks.get(await submit('/mj/submit/edits', { prompt: 'make it blue', base64Array: [png] }))!.action).toBe('EDITS');
    expect(fake.tasks.get(await submit('/mj/submit/video', { prompt: 'https://x/y.png waves', motion: 'low' }))!.action).toBe('VIDEO');
  });

  it('answers an upload with one CDN link per image and creates no task', async () => {
    const answer = await submitRaw('/mj/submit/upload-discord-images', { base64Array: [png, png] });
    expect(answer).toEqual({
      code: 1,
      description: 'success',
      result: ['https://cdn.discordapp.com/attachments/fake/1.png', 'https://cdn.discordapp.com/attachments/fake/2.png'],
    });
    expect(fake.tasks.size).toBe(0);
    expect(await submitRaw('/mj/submit/upload-discord-images', { base64Array: [] })).toMatchObject({ code: 4 });
  });
});

describe('image-seed and image bytes', () => {
  it('answers a seed only for a finished task of the key', async () => {
    const id = await submit('/mj/submit/imagine', { prompt: 'fox' });
    expect(await readJson(await call('GET', `/mj/task/${id}/image-seed`))).toEqual({ code: 4, description: 'task status not success', result: null });
    fake.advance(id, { status: 'SUCCESS' });
    const seed = await readJson(await call('GET', `/mj/task/${id}/image-seed`));
    expect(seed).toEqual({ code: 1, description: 'success', result: expect.stringMatching(/^\d+$/) });
    expect(await readJson(await call('GET', `/mj/task/${id}/image-seed`))).toEqual(seed);
    expect(await readJson(await call('GET', '/mj/task/404/image-seed'))).toEqual({ code: 3, description: 'task not found', result: null });
  });

  it('serves deterministic PNG bytes without auth', async () => {
    const id = await finishedImagine();
    const response = await fetch(fake.tasks.get(id)!.imageUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.equals(fake.imageOf(id))).toBe(true);
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(bytes.length).toBeGreaterThan(1000);
    expect(bytes.length).toBeLessThan(10_000);
    expect(fake.imageOf('1700000000000002').equals(bytes)).toBe(false);
    expect((await fetch(`${fake.url}/images/1234.png`)).status).toBe(404);
  });
});

describe('faults', () => {
  it('answers a queued HTTP status, then queued MJ codes, once each', async () => {
    fake.enqueueSubmitFault({ kind: 'http', status: 500 });
    fake.enqueueSubmitFault({ kind: 'http', status: 429, body: { error: 'slow down' } });
    fake.enqueueSubmitFault({ kind: 'code', code: 23 });
    fake.enqueueSubmitFault({ kind: 'code', code: 24, description: 'banned prompt', properties: { promptEn: 'nsfw', bannedWord: 'nsfw' } });

    let response = await call('POST', '/mj/submit/imagine', { prompt: 'fox' });
    expect(response.status).toBe(500);
    expect(await readJson(response)).toEqual({ code: 9, description: 'fake failure' });
    response = await call('POST', '/mj/insight-face/swap', { sourceBase64: png, targetBase64: png });
    expect(response.status).toBe(429);
    expect(await readJson(response)).toEqual({ error: 'slow down' });
    expect(await submitRaw('/mj/submit/imagine', { prompt: 'fox' })).toEqual({ code: 23, description: expect.any(String), result: null, properties: {} });
    expect(await submitRaw('/mj/submit/imagine', { prompt: 'nsfw' })).toEqual({ code: 24, description: 'banned prompt', result: null, properties: { promptEn: 'nsfw', bannedWord: 'nsfw' } });
    expect(fake.tasks.size).toBe(0);
    await submit('/mj/submit/imagine', { prompt: 'fox' });
  });

  it('answers a queued list-by-condition status with an empty body, once', async () => {
    const id = await submit('/mj/submit/imagine', { prompt: 'fox' });
    fake.enqueueFetchFault(500);
    const response = await call('POST', '/mj/task/list-by-condition', { ids: [id] });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('');
    expect(await list([id])).toHaveLength(1);
  });
});
