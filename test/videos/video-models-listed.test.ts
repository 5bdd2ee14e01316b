import { afterAll, beforeAll, expect, it } from 'vitest';
import { startVideosFixture, type VideosFixture } from '../videos/videos-fixture.js';

/**
 * Spec §4.2 / §5.6: the model list is what the key can actually call. `sora-2` and `sora-2-pro` are priced
 * per second only (the way video models are priced) and /v1/videos serves them; the list must show them.
 */
let fixture: VideosFixture;
beforeAll(async () => {
  fixture = await startVideosFixture();
});
afterAll(async () => {
  await fixture?.close();
});

it('lists per-second-priced video models that /v1/videos accepts', async () => {
  const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'listed?', seconds: '4' });
  expect(video.id).toBeTruthy();
  const list = (await (await fixture.fetch('/v1/models')).json()) as { data: { id: string }[] };
  const ids = list.data.map((model) => model.id);
  expect(ids).toContain('sora-alias'); // per_call: listed today
  expect(ids).toContain('sora-2');
  expect(ids).toContain('sora-2-pro');
});
