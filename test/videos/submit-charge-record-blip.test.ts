/**
 * The charge an accepted submit settled at is kept on its task row after the client has its answer
 * (TasksRepository.recordCharge, the request's last write). A database blip there must not crash or fail
 * anything, nor lose money: the client has its video, charged once; the charge reaches the row in the
 * background, or — never written — the operator is told, and a refund reads the charge from the
 * reservation (kept meanwhile). The refusal is the driver's, for `recordCharge` only
 * (test/support/submit-write-blips.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { refuseTaskWrites, reportedLines, until } from '../support/submit-write-blips.js';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, startVideosFixture, type VideosFixture } from './videos-fixture.js';

/**
 * The upstream fails the video; two polls later the task is failed and refunded once, its whole charge
 * recorded on the row, and the token back where it was `before` the submit.
 */
async function failAndExpectRefunded(videos: VideosFixture, videoId: string, before: number): Promise<void> {
  const task = await videos.task(videoId);
  videos.sora.advance(task?.upstream_id as string, { status: 'failed' });
  videos.advanceClock(60_000);
  await videos.poll();
  await videos.poll();
  expect(await videos.task(videoId)).toMatchObject({ status: 'failure', refunded: 1, quota: expectedCharge('sora-2', 8) });
  expect(await videos.tokenUsed()).toBe(before);
}

describe.each(allDialects)('an accepted submit whose charge the database refuses to keep on its row, on $dialect', ({ dialect, available }) => {
  let fixture: VideosFixture | undefined;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);

  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    process.off('unhandledRejection', onUnhandled);
    vi.restoreAllMocks();
    await fixture?.close();
    fixture = undefined;
  });

  it.skipIf(!available)('refused once: the client has its video, charged once, the charge reaches the row in the background, and a failure refunds it once', async () => {
    const videos = (fixture = await startVideosFixture({ dialect }));
    const calls = refuseTaskWrites(videos.gateway, 'recordCharge', 1);
    const before = await videos.tokenUsed();

    const video = await videos.client.videos.create({ model: 'sora-2', prompt: 'a blip after the answer', seconds: '8' });
    expect(video.status).toBe('queued');
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    await until(() => calls.count >= 2, 5000);
    await videos.gateway.gateway.services.relay.pendingSubmits.close();
    expect(await videos.task(video.id)).toMatchObject({ status: 'queued', quota: expectedCharge('sora-2', 8), refunded: 0 });

    await failAndExpectRefunded(videos, video.id, before);
    expect(unhandled).toEqual([]);
  });

  it.skipIf(!available)('never kept (refused to the last try, at shutdown): one operator line, and a failure still refunds the whole charge once, from the reservation', async () => {
    const videos = (fixture = await startVideosFixture({ dialect }));
    refuseTaskWrites(videos.gateway, 'recordCharge', 99);
    const lines = reportedLines(' could not be kept on its row');
    const before = await videos.tokenUsed();

    const video = await videos.client.videos.create({ model: 'sora-2', prompt: 'a longer blip after the answer', seconds: '8' });
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    await videos.gateway.gateway.services.relay.pendingSubmits.close();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`task ${video.id}`);
    expect(lines[0]).toContain(`charged ${expectedCharge('sora-2', 8)}`);
    expect(await videos.task(video.id)).toMatchObject({ status: 'queued', quota: null, refunded: 0 });

    await failAndExpectRefunded(videos, video.id, before);
    expect((await videos.logs()).filter((row) => row.style === 'task-refund').map((row) => Number(row.quota))).toEqual([-expectedCharge('sora-2', 8)]);
    expect(unhandled).toEqual([]);
  });
});
