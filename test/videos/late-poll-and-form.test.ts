import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectedCharge, startVideosFixture, type VideosFixture, preferredDialect } from './videos-fixture.js';

let fixture: VideosFixture;
beforeAll(async () => {
  fixture = await startVideosFixture({ dialect: preferredDialect() });
});
afterAll(async () => {
  await fixture.close();
});

it('a task its upstream already completed is not failed for a timeout when the poll comes late', async () => {
  const before = await fixture.tokenUsed();
  const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'late poll', seconds: '4' });
  fixture.sora.advance((await fixture.task(video.id))?.upstream_id as string, { status: 'completed' });
  // The poll loop was down (deploy, outage) and comes back after TASK_TIMEOUT_MINUTES.
  fixture.advanceClock(1440 * 60_000 + 1);
  await fixture.poll();
  expect((await fixture.client.videos.retrieve(video.id)).status).toBe('completed');
  expect((await fixture.tokenUsed()) - before).toBe(expectedCharge('sora-2', 4));
});

it('a form rewritten for seconds keeps the reference file (bytes, filename, type)', async () => {
  const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 0, 255]);
  await fixture.client.videos.create({ model: 'sora-alias' as 'sora-2', prompt: 'mapped, no seconds', input_reference: await OpenAI.toFile(image, 'frame.png', { type: 'image/png' }) });
  const sent = fixture.sora.requests.at(-1);
  expect(sent?.fields).toMatchObject({ model: 'sora-2', seconds: '4' });
  expect(sent?.files?.input_reference?.equals(image)).toBe(true);
});
