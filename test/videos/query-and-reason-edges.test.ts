import { afterAll, beforeAll, expect, it } from 'vitest';
import { smallKey, startVideosFixture, type VideosFixture, preferredDialect } from './videos-fixture.js';

let fixture: VideosFixture;
beforeAll(async () => {
  fixture = await startVideosFixture({ dialect: preferredDialect() });
});
afterAll(async () => {
  await fixture.close();
});

for (const path of ['/v1/videos/task_%00abc', '/v1/video/generations/task_%00abc', '/v1/videos/task_%00abc/content', `/v1/videos/${'a'.repeat(300)}`, '/v1/videos/%E9%9F%B3']) {
  it(`GET ${path.slice(0, 40)} is a 404 (or 400), not a 500`, async () => {
    const response = await fixture.fetch(path);
    expect([400, 404]).toContain(response.status);
    expect(await response.json()).toMatchObject({ error: { message: expect.any(String) } });
  });
}

it('two concurrent submits on a key that covers one: one 200, one 402', async () => {
  const body = JSON.stringify({ model: 'sora-2', prompt: 'race', seconds: '4' });
  const results = await Promise.all([0, 1].map(() => fixture.fetch('/v1/videos', { method: 'POST', headers: { 'content-type': 'application/json' }, body, key: smallKey })));
  expect(results.map((r) => r.status).sort()).toEqual([200, 402]);
  expect(await fixture.tokenRemaining('small-key')).toBe(0);
});

it('an upstream failure whose message holds a NUL character is still recorded failed and refunded', async () => {
  const before = await fixture.tokenUsed();
  const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'nul', seconds: '4' });
  fixture.sora.advance((await fixture.task(video.id))?.upstream_id as string, { status: 'failed', error: { code: 'moderation_blocked', message: 'Blocked prompt: "a\u0000b"' } });
  fixture.advanceClock(20_000);
  await fixture.poll();
  expect((await fixture.client.videos.retrieve(video.id)).status).toBe('failed');
  expect(await fixture.tokenUsed()).toBe(before);
});

it('a submit the upstream fails at once with a NUL in its message is answered failed (not 500), free, with a row', async () => {
  fixture.sora.enqueueSubmitFault({ kind: 'answer', body: { id: 'video_nul', object: 'video', status: 'failed', progress: 0, error: { code: 'moderation_blocked', message: 'Blocked: "a\u0000b"' } } });
  const { result, charge } = await fixture.charged(() => fixture.fetch('/v1/videos', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sora-2', prompt: 'nul at once' }) }));
  expect(result.status).toBe(200);
  expect(charge).toBe(0);
});
