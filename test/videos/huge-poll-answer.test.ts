import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, startVideosFixture, type VideosFixture } from './videos-fixture.js';

/**
 * From the async-tasks red team: a poll answer is kept on the task row as it came (`result`). An upstream
 * that failed a task with an answer of 17 MB (its error quoting a whole log) made the row's update
 * too large for MySQL/MariaDB (max_allowed_packet, mediumtext): the final state never committed, so the
 * task was polled, failed and thrown back every pass — never refunded, never timed out — and on SQLite and
 * PostgreSQL the 17 MB were stored and served back on every query of the task.
 */
describe.each(allDialects)('a huge poll answer on $dialect', ({ dialect, available }) => {
  let fixture: VideosFixture;

  beforeAll(async () => {
    if (!available) return;
    fixture = await startVideosFixture({ dialect });
  });
  afterAll(async () => {
    if (!available) return;
    await fixture.close();
  });

  it.skipIf(!available)('a task failed with a 17 MB answer is refunded once and its row keeps a bounded answer', async () => {
    const before = await fixture.tokenUsed();
    const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'doomed by a long story', seconds: '8' });
    expect((await fixture.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    const task = await fixture.task(video.id);
    fixture.sora.advance(task?.upstream_id as string, { status: 'failed', error: { code: 'internal_error', message: `Render farm log: ${'x'.repeat(17 * 1024 * 1024)}` } });
    fixture.advanceClock(1);
    const pass = await fixture.poll();
    expect(pass.refunded).toBe(1);
    expect(await fixture.tokenUsed()).toBe(before);
    const row = await fixture.task(video.id);
    expect(row).toMatchObject({ status: 'failure', refunded: 1 });
    expect(row?.result?.length ?? 0).toBeLessThan(1024 * 1024);
    expect(row?.fail_reason?.startsWith('Render farm log: xxx')).toBe(true);
    // Refunded once: later passes give nothing back again.
    fixture.advanceClock(200_000);
    expect((await fixture.poll()).refunded).toBe(0);
    expect(await fixture.tokenUsed()).toBe(before);
    // The client reads the failure without the 17 MB.
    const retrieved = await fixture.client.videos.retrieve(video.id);
    expect(retrieved.status).toBe('failed');
    expect(JSON.stringify(retrieved).length).toBeLessThan(1024 * 1024);
  }, 60_000);
});
