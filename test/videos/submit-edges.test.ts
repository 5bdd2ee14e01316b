import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, smallKey, startVideosFixture, type VideosFixture, preferredDialect } from './videos-fixture.js';

let fixture: VideosFixture;
beforeAll(async () => {
  fixture = await startVideosFixture({ dialect: preferredDialect() });
});
afterAll(async () => {
  await fixture.close();
});

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('money at submit', () => {
  it('402 for a key that cannot cover the price, with no upstream call and no row', async () => {
    const calls = fixture.sora.requests.length + fixture.spare.requests.length;
    const tasks = await fixture.taskCount();
    const response = await fixture.fetch('/v1/videos', { ...json({ model: 'sora-2', prompt: 'too long', seconds: '8' }), key: smallKey });
    expect(response.status).toBe(402);
    expect(fixture.sora.requests.length + fixture.spare.requests.length).toBe(calls);
    expect(await fixture.taskCount()).toBe(tasks);
  });

  it('a submit every channel fails (connection reset) costs nothing and leaves no row', async () => {
    fixture.sora.enqueueSubmitFault({ kind: 'reset' });
    fixture.spare.enqueueSubmitFault({ kind: 'reset' });
    const tasks = await fixture.taskCount();
    const { result, charge } = await fixture.charged(() => fixture.fetch('/v1/videos', json({ model: 'sora-2', prompt: 'reset' })));
    expect(result.status).toBeGreaterThanOrEqual(500);
    expect(await result.json()).toMatchObject({ error: { message: expect.any(String) } });
    expect(charge).toBe(0);
    expect(await fixture.taskCount()).toBe(tasks);
  });

  // From the side audit: a 3xx (a base_url moved to https) used to be read as the submitted video.
  it('a submit every channel answers with a redirect costs nothing, leaves no row and is a 502 naming it', async () => {
    const video = { id: `video_moved${'c0ffee'.repeat(7)}`, object: 'video', model: 'sora-2', status: 'queued', progress: 0, created_at: 1, seconds: '4', size: '720x1280' };
    fixture.sora.enqueueSubmitFault({ kind: 'answer', status: 301, body: video });
    fixture.spare.enqueueSubmitFault({ kind: 'answer', status: 302, body: video });
    const tasks = await fixture.taskCount();
    const { result, charge } = await fixture.charged(() => fixture.fetch('/v1/videos', json({ model: 'sora-2', prompt: 'moved', seconds: '4' })));
    expect(result.status).toBe(502);
    expect(await result.json()).toMatchObject({ error: { message: expect.stringMatching(/The upstream answered a redirect \(HTTP 30[12]\)/) } });
    expect(charge).toBe(0);
    expect(await fixture.taskCount()).toBe(tasks);
  });

  it('a 400 from the upstream is passed through at no charge and no row', async () => {
    const tasks = await fixture.taskCount();
    const { result, charge } = await fixture.charged(() => fixture.fetch('/v1/videos', json({ model: 'sora-2', prompt: 'bad', seconds: '5' })));
    expect(result.status).toBe(400);
    expect(charge).toBe(0);
    expect(await fixture.taskCount()).toBe(tasks);
  });

  it('size in upper case is priced as the lower-case model@size', async () => {
    const { result, charge } = await fixture.charged(() => fixture.fetch('/v1/videos', json({ model: 'sora-2-pro', prompt: 'wide', seconds: '4', size: '1792X1024' })));
    if (result.status === 200) expect(charge).toBe(expectedCharge('sora-2-pro@1792x1024', 4));
    else expect(charge).toBe(0);
  });

  it('JSON with both seconds and duration: charged for and sent the seconds', async () => {
    const { result, charge } = await fixture.charged(() => fixture.fetch('/v1/videos', json({ model: 'sora-2', prompt: 'both', seconds: '4', duration: 12 })));
    expect(result.status).toBe(200);
    expect(charge).toBe(expectedCharge('sora-2', 4));
    expect(fixture.sora.requests.at(-1)?.fields).toMatchObject({ seconds: '4' });
  });

  it('a form with duration only is sent upstream as seconds and charged for it', async () => {
    const form = new FormData();
    form.set('model', 'sora-2');
    form.set('prompt', 'form duration');
    form.set('duration', '12');
    const { result, charge } = await fixture.charged(() => fixture.fetch('/v1/videos', { method: 'POST', body: form }));
    expect(result.status).toBe(200);
    expect(charge).toBe(expectedCharge('sora-2', 12));
    expect(fixture.sora.requests.at(-1)?.fields).toMatchObject({ seconds: '12' });
  });

  it('a form giving seconds twice is a 400 before anything is charged', async () => {
    const form = new FormData();
    form.set('model', 'sora-2');
    form.set('prompt', 'twice');
    form.append('seconds', '4');
    form.append('seconds', '12');
    const { result, charge } = await fixture.charged(() => fixture.fetch('/v1/videos', { method: 'POST', body: form }));
    expect(result.status).toBe(400);
    expect(charge).toBe(0);
  });
});

describe('bad input envelopes', () => {
  for (const [name, init, path] of [
    ['malformed JSON', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' }, '/v1/videos'],
    ['JSON array', json([1]), '/v1/videos'],
    ['seconds as array', json({ model: 'sora-2', prompt: 'x', seconds: [4] }), '/v1/videos'],
    ['seconds 8.0', json({ model: 'sora-2', prompt: 'x', seconds: '8.0' }), '/v1/videos'],
    ['seconds 0', json({ model: 'sora-2', prompt: 'x', seconds: 0 }), '/v1/videos'],
    ['prompt number', json({ model: 'sora-2', prompt: 5 }), '/v1/videos'],
    ['size object', json({ model: 'sora-2', prompt: 'x', size: {} }), '/v1/videos'],
    ['model number', json({ model: 5, prompt: 'x' }), '/v1/video/generations'],
    ['empty body', { method: 'POST', headers: { 'content-type': 'application/json' } }, '/v1/video/generations'],
    ['malformed multipart', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=zzz' }, body: '--zzz\r\nbroken' }, '/v1/videos'],
  ] as const) {
    it(`${name} on ${path} is a 4xx with OpenAI's error envelope`, async () => {
      const response = await fixture.fetch(path, init as RequestInit);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(await response.json()).toMatchObject({ error: { message: expect.any(String), type: expect.any(String) } });
    });
  }

  it('a multipart form to the unified route is a 4xx envelope, not a 500', async () => {
    const form = new FormData();
    form.set('model', 'sora-2');
    form.set('prompt', 'x');
    const response = await fixture.fetch('/v1/video/generations', { method: 'POST', body: form });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(await response.json()).toMatchObject({ error: { message: expect.any(String) } });
  });
});

describe('the poll loop', () => {
  it('keeps status and progress when the upstream goes backwards or says something unknown', async () => {
    const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'back', seconds: '4' });
    const id = (await fixture.task(video.id))?.upstream_id as string;
    fixture.sora.advance(id, { status: 'in_progress', progress: 60 });
    fixture.advanceClock(20_000);
    await fixture.poll();
    fixture.sora.advance(id, { status: 'queued', progress: 10 });
    fixture.advanceClock(20_000);
    await fixture.poll();
    expect(await fixture.client.videos.retrieve(video.id)).toMatchObject({ status: 'in_progress', progress: 60 });
    fixture.sora.advance(id, { status: 'weird' as 'queued', progress: 70 });
    fixture.advanceClock(20_000);
    await fixture.poll();
    expect(await fixture.client.videos.retrieve(video.id)).toMatchObject({ status: 'in_progress', progress: 60 });
  });

  it('two engines polling a failed task at once refund it once', async () => {
    const before = await fixture.tokenUsed();
    const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'fail twice', seconds: '4' });
    fixture.sora.advance((await fixture.task(video.id))?.upstream_id as string, { status: 'failed', error: { code: 'x', message: 'no' } });
    fixture.advanceClock(20_000);
    const engine = fixture.gateway.gateway.services.taskEngine;
    await Promise.all([engine.pollOnce(), engine.pollOnce(), engine.pollOnce()]);
    await fixture.gateway.settled();
    expect(await fixture.tokenUsed()).toBe(before);
  });
});

describe('content', () => {
  it('a client that aborts mid-download does not break the gateway', async () => {
    const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'dl', seconds: '4' });
    fixture.sora.advance((await fixture.task(video.id))?.upstream_id as string, { status: 'completed' });
    fixture.advanceClock(20_000);
    await fixture.poll();
    const controller = new AbortController();
    const response = await fixture.fetch(`/v1/videos/${video.id}/content`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await fixture.fetch(`/v1/videos/${video.id}/content`);
    expect(again.status).toBe(200);
    expect(Buffer.from(await again.arrayBuffer()).length).toBe(3 * 1024 * 1024 + 17);
    expect((await fixture.fetch(`/v1/videos/${video.id}`)).status).toBe(200);
  });
});

describe('content errors', () => {
  it('502 with the OpenAI envelope when the upstream has lost the video', async () => {
    const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'lost', seconds: '4' });
    const id = (await fixture.task(video.id))?.upstream_id as string;
    fixture.sora.advance(id, { status: 'completed' });
    fixture.advanceClock(20_000);
    await fixture.poll();
    fixture.sora.videos.delete(id);
    const response = await fixture.fetch(`/v1/videos/${video.id}/content`);
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/^Failed to fetch video content/) } });
  });
});
