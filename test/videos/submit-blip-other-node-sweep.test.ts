/**
 * Two gateways on one database; the first answered and charged a video whose submitted state the database
 * refused, and holds that write in memory (src/relay/task-submit/pending-submits.ts). The second node's
 * orphan sweep does not know it is held. Either way the money is right: the sweep fails and refunds the row
 * first, and the late write is refused and reported (one refund, the token back where it was, nothing
 * written over the refund); or the write lands between the sweep's claim and its failing of the row, and
 * the sweep's CAS leaves the task alone (no refund; polled and charged once). The refusal is the driver's,
 * for `markSubmitted` only (test/support/submit-write-blips.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { orphanAfterMs } from '../../src/tasks/task-engine.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { refuseSubmittedWrites, reportedLines } from '../support/submit-write-blips.js';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, startVideosFixture, type VideosFixture } from './videos-fixture.js';

describe.each(allDialects)('a held submit and another node’s orphan sweep, on $dialect', ({ dialect, available }) => {
  let fixture: VideosFixture | undefined;
  let replica: TestGateway | undefined;

  afterEach(async () => {
    vi.restoreAllMocks();
    await replica?.close();
    await fixture?.close();
    replica = undefined;
    fixture = undefined;
  });

  /** The node that holds the write, with its submit answered while every write of its state is refused, and the sweeping node. */
  async function heldSubmit() {
    const videos = (fixture = await startVideosFixture({ dialect }));
    const sweeper = (replica = await startTestGateway({ databaseUrl: videos.gateway.databaseUrl, now: videos.now, env: { TASK_POLL_INTERVAL: '0', NODE_NAME: 'sweeping-node' }, config: {} }));
    const tasks = videos.gateway.gateway.services.repositories.tasks;
    refuseSubmittedWrites(videos.gateway, Infinity);
    const before = await videos.tokenUsed();
    const video = await videos.client.videos.create({ model: 'sora-2', prompt: 'held while another node sweeps', seconds: '8' });
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    expect(await videos.task(video.id)).toMatchObject({ status: 'not_start', refunded: 0 });
    return {
      videos,
      sweeper,
      before,
      video,
      upstreamId: [...videos.sora.videos.keys()].at(-1) as string,
      /** The database takes the held node's writes again; its held write gets its try now (what its next timer would do). */
      async writeHeld() {
        vi.mocked(tasks.markSubmitted).mockRestore();
        await videos.gateway.gateway.services.relay.pendingSubmits.close();
      },
      sweep: async () => {
        const summary = await sweeper.gateway.services.taskEngine.pollOnce();
        await sweeper.settled();
        return summary;
      },
    };
  }

  const refundRows = async (videos: VideosFixture, publicId: string) => (await videos.logs()).filter((row) => row.style === 'task-refund' && row.path === `/v1/videos/${publicId}`);

  it.skipIf(!available)('the other node refunds first: the late write is refused and reported once, the refund stands, once', async () => {
    const { videos, before, video, upstreamId, writeHeld, sweep } = await heldSubmit();
    const lines = reportedLines();

    videos.advanceClock(orphanAfterMs + 60_000);
    // The holding node's own sweep leaves the row alone; the other node's fails and refunds it.
    expect(await videos.poll()).toEqual({ polled: 0, finished: 0, refunded: 0 });
    expect(await sweep()).toMatchObject({ finished: 1, refunded: 1 });
    expect(await videos.task(video.id)).toMatchObject({ status: 'failure', refunded: 1, quota: expectedCharge('sora-2', 8) });
    expect(await videos.tokenUsed()).toBe(before);

    await writeHeld();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`task ${video.id}`);
    expect(lines[0]).toContain(`(upstream id ${JSON.stringify(upstreamId)})`);
    expect(lines[0]).toContain('failed and refunded as an orphan');
    // Nothing written over the refund, and no second refund by either node, however often they pass.
    const task = await videos.task(video.id);
    expect(task).toMatchObject({ status: 'failure', refunded: 1, upstream_id: null, quota: expectedCharge('sora-2', 8) });
    videos.advanceClock(200_000);
    await sweep();
    await videos.poll();
    expect(await videos.tokenUsed()).toBe(before);
    expect((await refundRows(videos, video.id)).map((row) => Number(row.quota))).toEqual([-expectedCharge('sora-2', 8)]);
  });

  it.skipIf(!available)('the held write lands between the other node’s claim and its failing of the row: no refund, the task is polled to completion and charged once', async () => {
    const { videos, sweeper, before, video, upstreamId, writeHeld, sweep } = await heldSubmit();
    const sweeperTasks = sweeper.gateway.services.repositories.tasks;
    const applyChange = sweeperTasks.applyChange.bind(sweeperTasks);
    vi.spyOn(sweeperTasks, 'applyChange').mockImplementationOnce(async (...args) => {
      await writeHeld();
      return applyChange(...args);
    });

    videos.advanceClock(orphanAfterMs + 60_000);
    expect(await sweep()).toEqual({ polled: 0, finished: 0, refunded: 0 });
    expect(await videos.task(video.id)).toMatchObject({ status: 'queued', upstream_id: upstreamId, refunded: 0, quota: expectedCharge('sora-2', 8) });
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));

    // Past the claim's lease, a poll finishes it.
    videos.sora.advance(upstreamId, { status: 'completed' });
    videos.advanceClock(180_000);
    await sweep();
    expect((await videos.client.videos.retrieve(video.id)).status).toBe('completed');
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    expect(await refundRows(videos, video.id)).toEqual([]);
  });
});
