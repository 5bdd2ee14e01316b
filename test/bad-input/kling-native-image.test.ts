/**
 * Kling's native image2video route (docs/behaviour.md "Video": `POST /kling/v1/videos/image2video` takes
 * Kling's own body, `image` among its fields). An image2video without a usable `image` (a number, or none)
 * is bad input: the bar is a 400 in the task envelope `{code, message, data: null}` naming `image`, no
 * upstream call, no task, nothing charged. Before the fix (the bad-input audit): the route's action was dropped (klingNativeToUnified keeps only
 * the body), the task has no reference image, so it is sent to Kling's text2video and charged as a video.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, send, startTaskRoutesFixture, withoutCharge, type TaskRoutesFixture } from './task-routes-fixture.js';

let f: TaskRoutesFixture;
beforeAll(async () => {
  f = await startTaskRoutesFixture();
});
afterAll(async () => {
  await f?.close();
});

describe('/kling/v1/videos/image2video needs an image', () => {
  it.each([
    ['image: 5 (a number)', { model_name: 'kling-v2-6', prompt: 'a cat', image: 5 }],
    ['no image at all', { model_name: 'kling-v2-6', prompt: 'a cat' }],
    ['image: {} (an object)', { model_name: 'kling-v2-6', prompt: 'a cat', image: {} }],
  ])('%s → 400 naming image, no upstream call, no task, no charge', async (_label, body) => {
    const sent = await withoutCharge(f, () => send(f, '/kling/v1/videos/image2video', { body: JSON.stringify(body) }));
    expect(sent.status, `${sent.text} (upstream paths: ${f.kling.requests.map((request) => request.path).join(', ')})`).toBe(400);
    expect(expectEnvelope(sent, 'task')).toContain('image');
  });
});
