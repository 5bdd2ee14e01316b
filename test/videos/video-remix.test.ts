import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, otherUserKey, startVideosFixture, type VideosFixture } from './videos-fixture.js';

let fixture: VideosFixture;

beforeAll(async () => {
  fixture = await startVideosFixture();
});
afterAll(async () => {
  await fixture.close();
});

/** A completed video of the main key's, made on `channel`. */
async function completedVideo(model: 'sora-2' | 'sora-2-pro', options: { seconds?: '4' | '8' | '12'; size?: '1792x1024' | '720x1280'; failFirstChannel?: boolean } = {}) {
  if (options.failFirstChannel === true) fixture.sora.enqueueSubmitFault({ kind: 'status', status: 500 });
  const video = await fixture.client.videos.create({ model, prompt: 'origin', ...(options.seconds === undefined ? {} : { seconds: options.seconds }), ...(options.size === undefined ? {} : { size: options.size }) });
  const task = await fixture.task(video.id);
  const upstream = options.failFirstChannel === true ? fixture.spare : fixture.sora;
  upstream.advance(task?.upstream_id as string, { status: 'completed' });
  fixture.advanceClock(1);
  await fixture.poll();
  return { video, task, upstream };
}

describe('remixing a video (POST /v1/videos/{id}/remix, OpenAI SDK)', () => {
  it('asks the upstream that made the video, with its key, and charges as the origin is priced', async () => {
    const { video, task, upstream } = await completedVideo('sora-2-pro', { seconds: '8', size: '1792x1024' });
    const { result: remix, charge } = await fixture.charged(() => fixture.client.videos.remix(video.id, { prompt: 'Now at night' }));
    expect(remix.id).toMatch(/^task_[A-Za-z0-9]{32}$/);
    expect(remix.id).not.toBe(video.id);
    expect(remix).toMatchObject({ status: 'queued', model: 'sora-2-pro', seconds: '8', size: '1792x1024', remixed_from_video_id: video.id });
    expect(charge).toBe(expectedCharge('sora-2-pro@1792x1024', 8));
    const sent = upstream.requests.at(-1);
    expect(sent?.path).toBe(`/v1/videos/${task?.upstream_id}/remix`);
    expect(sent?.fields).toEqual({ prompt: 'Now at night' });
    // The key that made the origin (the fake's 404 for any other key would have failed the remix).
    const originSubmit = upstream.requests.find((request) => request.method === 'POST' && request.fields?.prompt === 'origin' && request.path === '/v1/videos');
    expect(sent?.headers.authorization).toBe(originSubmit?.headers.authorization);

    // A remix is a task like another: polled, and refunded if it fails.
    fixture.sora.advance((await fixture.task(remix.id))?.upstream_id as string, { status: 'failed', error: { code: 'x', message: 'Remix failed.' } });
    const before = await fixture.tokenUsed();
    fixture.advanceClock(1);
    await fixture.poll();
    expect((await fixture.client.videos.retrieve(remix.id)).status).toBe('failed');
    expect(before - (await fixture.tokenUsed())).toBe(expectedCharge('sora-2-pro@1792x1024', 8));
  });

  it('stays on the origin’s channel even when that is not the first choice', async () => {
    const { video, upstream } = await completedVideo('sora-2', { failFirstChannel: true });
    expect(upstream).toBe(fixture.spare);
    const spareBefore = fixture.spare.requests.length;
    const soraBefore = fixture.sora.requests.length;
    const remix = await fixture.client.videos.remix(video.id, { prompt: 'Again' });
    expect(remix.remixed_from_video_id).toBe(video.id);
    expect(fixture.spare.requests.length).toBe(spareBefore + 1);
    expect(fixture.sora.requests.length).toBe(soraBefore);
  });

  it('refuses a video not completed, another user’s, a missing prompt — all free', async () => {
    const pending = await fixture.client.videos.create({ model: 'sora-2', prompt: 'pending' });
    const { video } = await completedVideo('sora-2');
    const before = await fixture.tokenUsed();
    const early = await fixture.fetch(`/v1/videos/${pending.id}/remix`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'x' }) });
    expect(early.status).toBe(400);
    const foreign = await fixture.fetch(`/v1/videos/${video.id}/remix`, { key: otherUserKey, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'x' }) });
    expect(foreign.status).toBe(404);
    const noPrompt = await fixture.fetch(`/v1/videos/${video.id}/remix`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({}) });
    expect(noPrompt.status).toBe(400);
    expect(await noPrompt.json()).toMatchObject({ error: { param: 'prompt' } });
    expect(await fixture.tokenUsed()).toBe(before);
  });
});
