/**
 * The submitted-state write of an accepted video lands, but its answer is lost with the connection (the
 * database committed the UPDATE; the gateway only sees the connection die). The request's retry must be
 * harmless: it finds the row already holding its upstream id and counts it written — no hold, no report,
 * one charge, the task polled as usual. On PostgreSQL and MySQL the connection is really cut by a TCP proxy
 * in front of the test's own database (test/support/database-proxy.ts: the server's first answer bytes
 * end it); SQLite has no connection to lose, so there the write is made and then thrown as a lost
 * connection's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SubmittedTask } from '../../src/storage/tasks-repository.js';
import { startDatabaseProxy, type DatabaseProxy } from '../support/database-proxy.js';
import { lostConnection, reportedLines } from '../support/submit-write-blips.js';
import { allDialects, createTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { expectedCharge, startVideosFixture, type VideosFixture } from './videos-fixture.js';

describe.each(allDialects)('a submitted state written but its answer lost, on $dialect', ({ dialect, available }) => {
  let fixture: VideosFixture | undefined;
  let proxy: DatabaseProxy | undefined;
  let database: TestDatabase | undefined;

  afterEach(async () => {
    vi.restoreAllMocks();
    await fixture?.close();
    await proxy?.close();
    await database?.drop();
    fixture = undefined;
    proxy = undefined;
    database = undefined;
  });

  /** The gateway, on the test's own database: behind the proxy on a server, as is on SQLite. */
  async function start(): Promise<VideosFixture> {
    if (dialect === 'sqlite') return (fixture = await startVideosFixture({ dialect }));
    database = await createTestDatabase(dialect);
    const target = new URL(database.url);
    proxy = await startDatabaseProxy(target.hostname, Number(target.port || (dialect === 'postgres' ? 5432 : 3306)));
    return (fixture = await startVideosFixture({ dialect, databaseUrl: proxy.urlFor(database.url) }));
  }

  /** The first submitted-state write reaches the database and its answer is lost; returns each write's outcome. */
  function loseFirstAnswer(videos: VideosFixture): string[] {
    const tasks = videos.gateway.gateway.services.repositories.tasks;
    const markSubmitted = tasks.markSubmitted.bind(tasks);
    const outcomes: string[] = [];
    vi.spyOn(tasks, 'markSubmitted').mockImplementation(async (id: number, submitted: SubmittedTask, now: number) => {
      if (outcomes.length > 0) {
        const written = await markSubmitted(id, submitted, now);
        outcomes.push(written ? 'written' : 'left not_start');
        return written;
      }
      if (proxy === undefined) {
        await markSubmitted(id, submitted, now);
        outcomes.push('answer lost');
        throw lostConnection();
      }
      proxy.dropAnswers();
      try {
        const written = await markSubmitted(id, submitted, now);
        outcomes.push(`answered ${String(written)}`);
        return written;
      } catch (error) {
        outcomes.push('answer lost');
        throw error;
      } finally {
        proxy.restore();
      }
    });
    return outcomes;
  }

  it.skipIf(!available)('the retry finds its own write: answered queued, charged once, nothing held or reported, polled to completion', async () => {
    const videos = await start();
    const outcomes = loseFirstAnswer(videos);
    const lines = reportedLines();
    const before = await videos.tokenUsed();

    const video = await videos.client.videos.create({ model: 'sora-2', prompt: 'a lost answer', seconds: '8' });
    expect(video.status).toBe('queued');
    // The retry's CAS finds the row gone from not_start — with this submit's upstream id on it.
    expect(outcomes).toEqual(['answer lost', 'left not_start']);
    const upstreamId = [...videos.sora.videos.keys()].at(-1) as string;
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    expect(await videos.task(video.id)).toMatchObject({ status: 'queued', upstream_id: upstreamId, quota: expectedCharge('sora-2', 8), refunded: 0 });
    const task = await videos.task(video.id);
    expect(videos.gateway.gateway.services.relay.pendingSubmits.isHeld(Number(task?.id))).toBe(false);
    // Its log row is a plain success: nothing written in the background.
    const submitLogs = (await videos.logs()).filter((row) => row.path === '/v1/videos');
    expect(submitLogs.map((row) => [row.status, Number(row.quota), row.error])).toEqual([[200, expectedCharge('sora-2', 8), null]]);

    videos.sora.advance(upstreamId, { status: 'completed' });
    videos.advanceClock(60_000);
    await videos.poll();
    expect((await videos.client.videos.retrieve(video.id)).status).toBe('completed');
    expect((await videos.tokenUsed()) - before).toBe(expectedCharge('sora-2', 8));
    await videos.gateway.gateway.services.relay.pendingSubmits.close();
    expect(lines).toEqual([]);
  });
});
