import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDialects } from '../support/test-databases.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { expectedCharge, smallKey, startVideosFixture, type VideosFixture } from './videos-fixture.js';

/**
 * Task money on every database, with two gateway processes' poll loops on one database: each failed task
 * is refunded exactly once however the passes interleave, concurrent submits never overspend a key, and a
 * submit cut by a crash is refunded once its reservation is recovered.
 */
describe.each(allDialects)('task money on $dialect', ({ dialect, available }) => {
  let fixture: VideosFixture;
  let replica: TestGateway;

  beforeAll(async () => {
    if (!available) return;
    fixture = await startVideosFixture({ dialect });
    // A second gateway on the same database, as another replica: its own poll loop, its own clock (the same one).
    replica = await startTestGateway({ databaseUrl: fixture.gateway.databaseUrl, now: fixture.now, env: { TASK_POLL_INTERVAL: '0' }, config: {} });
  });
  afterAll(async () => {
    if (!available) return;
    await replica.close();
    await fixture.close();
  });

  it.skipIf(!available)('refunds each failed task once while two replicas poll at the same time', async () => {
    const before = await fixture.tokenUsed();
    const videos = await Promise.all(Array.from({ length: 6 }, (_, index) => fixture.client.videos.create({ model: 'sora-2', prompt: `doomed ${index}`, seconds: '8' })));
    expect((await fixture.tokenUsed()) - before).toBe(6 * expectedCharge('sora-2', 8));
    for (const video of videos) {
      const task = await fixture.task(video.id);
      fixture.sora.advance(task?.upstream_id as string, { status: 'failed', error: { code: 'internal_error', message: 'Render farm on fire.' } });
    }
    fixture.advanceClock(1);
    const engines = [fixture.gateway.gateway.services.taskEngine, replica.gateway.services.taskEngine];
    // Several rounds of both loops at once; leases and the refund guard decide who does what.
    for (let round = 0; round < 3; round += 1) {
      const passes = await Promise.all(engines.flatMap((engine) => [engine.pollOnce(), engine.pollOnce()]));
      if (round === 0) expect(passes.reduce((sum, pass) => sum + pass.refunded, 0)).toBe(6);
      else expect(passes.reduce((sum, pass) => sum + pass.refunded, 0)).toBe(0);
      fixture.advanceClock(200_000);
    }
    await Promise.all([fixture.gateway.settled(), replica.settled()]);
    expect(await fixture.tokenUsed()).toBe(before);
    const refunds = (await fixture.logs()).filter((row) => row.style === 'task-refund' && videos.some((video) => row.path === `/v1/videos/${video.id}`));
    expect(refunds).toHaveLength(6);
    for (const video of videos) expect(await fixture.task(video.id)).toMatchObject({ status: 'failure', refunded: 1, quota: expectedCharge('sora-2', 8) });
  });

  it.skipIf(!available)('lets concurrent submits on a key spend no more than it holds', async () => {
    const submitsBefore = fixture.sora.requests.filter((request) => request.method === 'POST').length;
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => fixture.clientWith(smallKey).videos.create({ model: 'sora-2', prompt: 'one of many', seconds: '4' })));
    const served = results.filter((result) => result.status === 'fulfilled');
    expect(served).toHaveLength(1);
    for (const result of results) if (result.status === 'rejected') expect((result.reason as { status?: number }).status).toBe(402);
    expect(await fixture.tokenRemaining('small-key')).toBe(0);
    // Refused submits never reached an upstream.
    expect(fixture.sora.requests.filter((request) => request.method === 'POST').length - submitsBefore).toBe(1);
  });

  it.skipIf(!available)('refunds a submit a crash cut off, once its reservation is recovered', async () => {
    const services = fixture.gateway.gateway.services;
    const caller = await services.database.db.selectFrom('tokens').select(['id', 'user_id']).where('name', '=', 'director-key').executeTakeFirstOrThrow();
    const usedBefore = await fixture.tokenUsed();
    const remainingBefore = await fixture.tokenRemaining('director-key');
    const amount = expectedCharge('sora-2', 12);
    const requestId = `crashed-${dialect}-${Date.now()}`;
    // What a submit leaves when its process dies during the upstream call: a reservation and a `not_start` row.
    expect(await services.relay.ledger.reserve({ id: requestId, tokenId: caller.id, userId: caller.user_id, amount }, fixture.now())).toEqual({ ok: true });
    await services.repositories.tasks.insert({ publicId: `task_crash${dialect}`, kind: 'video', requestId, userId: caller.user_id, tokenId: caller.id, model: 'sora-2', properties: { seconds: 12 } }, fixture.now());

    fixture.advanceClock(16 * 60_000);
    await fixture.poll();
    // Failed as an orphan, but its charge is not settled yet: nothing to give back so far.
    expect(await fixture.task(`task_crash${dialect}`)).toMatchObject({ status: 'failure', refunded: 0 });
    expect(remainingBefore - (await fixture.tokenRemaining('director-key'))).toBe(amount);

    // The restarted instance settles the reservation at its amount; the next pass refunds exactly that.
    await services.relay.ledger.recoverOpenReservations(fixture.now(), undefined, 'start');
    fixture.advanceClock(1);
    await fixture.poll();
    expect(await fixture.task(`task_crash${dialect}`)).toMatchObject({ status: 'failure', refunded: 1, quota: amount });
    expect(await fixture.tokenRemaining('director-key')).toBe(remainingBefore);
    expect(await fixture.tokenUsed()).toBe(usedBefore);
  });
});
