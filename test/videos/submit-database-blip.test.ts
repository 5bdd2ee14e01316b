/**
 * A video submit the upstream accepted while the database refused to record it (a restart, a failover, a
 * lock timeout): the task is not lost. The submitted state is tried again within the request, then in the
 * background (and once more at shutdown); the client gets its task, charged once, and the poll loop
 * finishes it once the row lands. Given up, the operator is told the upstream id, and the orphan sweep
 * refunds the charge once. The refusal is the driver's: the write is refused as a lost connection would
 * be, only for `markSubmitted`, while the rest of the request uses the real database.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { refuseSubmittedWrites, reportedLines, until } from '../support/submit-write-blips.js';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, startVideosFixture, type VideosFixture } from './videos-fixture.js';

describe.each(allDialects)('an accepted submit the database refuses to record, on $dialect', ({ dialect, available }) => {
  let fixture: VideosFixture | undefined;

  afterEach(async () => {
    vi.restoreAllMocks();
    await fixture?.close();
    fixture = undefined;
  });

  const submitsReceived = (videos: VideosFixture) => videos.sora.requests.filter((request) => request.method === 'POST').length + videos.spare.requests.filter((request) => request.method === 'POST').length;

  it.skipIf(!available)('a blip of two refusals: the client gets its task, charged once, and the poll finishes it', async () => {
    const videos = (fixture = await startVideosFixture({ dialect }));
    const outcomes = refuseSubmittedWrites(videos.gateway, 2);
    const before = await videos.tokenUsed();

    const video = await videos.client.videos.create({ model: 'sora-2', prompt: 'a blip', seconds: '8' });

    expect(outcomes).toEqual(['refused', 'refused', 'written']);
    expect(video.status).toBe('queued');
    expect(submitsReceived(videos)).toBe(1);
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    const task = await videos.task(video.id);
    expect(task).toMatchObject({ status: 'queued', quota: expectedCharge('sora-2', 8), refunded: 0 });

    videos.sora.advance(task?.upstream_id as string, { status: 'completed' });
    videos.advanceClock(60_000);
    await videos.poll();
    expect((await videos.client.videos.retrieve(video.id)).status).toBe('completed');
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
  });

  it.skipIf(!available)('an outage past the request: answered at once, written in the background, left alone by the orphan sweep meanwhile, then polled to success', async () => {
    const videos = (fixture = await startVideosFixture({ dialect }));
    // Four tries within the request, then two background tries refused; the third lands.
    const outcomes = refuseSubmittedWrites(videos.gateway, 6);
    const before = await videos.tokenUsed();

    const video = await videos.client.videos.create({ model: 'sora-2', prompt: 'an outage', seconds: '8' });
    expect(video.status).toBe('queued');
    expect(outcomes).toEqual(['refused', 'refused', 'refused', 'refused']);
    expect(submitsReceived(videos)).toBe(1);
    // Charged once, the log row saying why the task is not recorded yet; the id answers while it waits.
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    const submitLog = (await videos.logs()).find((row) => row.path === '/v1/videos' && row.status === 200 && String(row.error).includes(video.id));
    expect(submitLog).toMatchObject({ quota: expectedCharge('sora-2', 8) });
    expect((await videos.client.videos.retrieve(video.id)).status).toBe('queued');
    // Past the orphan age, this node's sweep leaves the row its retry still holds.
    videos.advanceClock(16 * 60_000);
    expect(await videos.poll()).toEqual({ polled: 0, finished: 0, refunded: 0 });
    expect(await videos.task(video.id)).toMatchObject({ status: 'not_start', refunded: 0 });

    await until(() => outcomes.includes('written'));
    expect(outcomes).toEqual(['refused', 'refused', 'refused', 'refused', 'refused', 'refused', 'written']);
    const task = await videos.task(video.id);
    expect(task).toMatchObject({ status: 'queued', quota: expectedCharge('sora-2', 8), refunded: 0 });
    videos.sora.advance(task?.upstream_id as string, { status: 'completed' });
    videos.advanceClock(60_000);
    await videos.poll();
    expect((await videos.client.videos.retrieve(video.id)).status).toBe('completed');
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    expect(submitsReceived(videos)).toBe(1);
  });

  it.skipIf(!available)('never written (the last try, at shutdown, refused too): the operator is told the upstream id, and the sweep refunds the charge once', async () => {
    const videos = (fixture = await startVideosFixture({ dialect }));
    const outcomes = refuseSubmittedWrites(videos.gateway, 99);
    const lines = reportedLines();
    const before = await videos.tokenUsed();

    const video = await videos.client.videos.create({ model: 'sora-2', prompt: 'a long outage', seconds: '8' });
    const upstreamId = [...videos.sora.videos.keys()].at(-1);
    expect(lines).toEqual([]);
    // What shutdown does before the database closes: the held write gets its last try (refused).
    await videos.gateway.gateway.services.relay.pendingSubmits.close();

    expect(outcomes.length).toBeGreaterThanOrEqual(5);
    expect(outcomes.every((outcome) => outcome === 'refused')).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`task ${video.id}`);
    expect(lines[0]).toContain(`(upstream id ${JSON.stringify(upstreamId)})`);
    // The charge stands, on the key and on the submit's log row; the row is still not_start.
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    const submitLogs = (await videos.logs()).filter((row) => row.path === '/v1/videos' && String(row.error).includes(video.id));
    expect(submitLogs.map((row) => Number(row.quota))).toEqual([expectedCharge('sora-2', 8)]);
    expect(await videos.task(video.id)).toMatchObject({ status: 'not_start', refunded: 0 });

    // Nothing holds it now: the orphan sweep fails it and refunds it, once, however often it passes.
    videos.advanceClock(16 * 60_000);
    expect((await videos.poll()).refunded).toBe(1);
    videos.advanceClock(200_000);
    expect((await videos.poll()).refunded).toBe(0);
    expect(await videos.task(video.id)).toMatchObject({ status: 'failure', refunded: 1, quota: expectedCharge('sora-2', 8) });
    expect(await videos.tokenUsed()).toBe(before);
    expect((await videos.logs()).filter((row) => row.style === 'task-refund' && row.path === `/v1/videos/${video.id}`)).toHaveLength(1);
  });
});
