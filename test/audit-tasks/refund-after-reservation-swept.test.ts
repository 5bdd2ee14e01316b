/**
 * Audit (tasks): a refund lost when a process crashes between the upstream's acceptance and the settle.
 *
 * docs/behaviour.md "Video" → Crashes: start-up recovery settles the open reservation at its amount; the
 * task row keeps `quota = NULL` (recordCharge never ran), so refundFailed reads the charge from the
 * reservation row. The retention sweep deletes settled reservations a day after they settle, and the
 * default TASK_TIMEOUT_MINUTES is 1440 — a task that then fails (upstream failure or the timeout itself)
 * more than a day after the restart is "refunded" 0 and marked refunded: the client paid for nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRequestId } from '../../src/http/generate-request-id.js';
import { keyFingerprint } from '../../src/tasks/key-fingerprint.js';
import { runRetention } from '../../src/storage/start-retention.js';
import { expectedCharge, startVideosFixture, upstreamKeys, type VideosFixture } from '../videos/videos-fixture.js';

let fixture: VideosFixture;
beforeAll(async () => {
  fixture = await startVideosFixture();
});
afterAll(async () => {
  await fixture.close();
});

describe('a crash between the upstream accepting a task and the settle', () => {
  it('the task that fails a day later is refunded its charge (not 0)', async () => {
    const services = fixture.gateway.gateway.services;
    const { db } = services.database;
    const caller = await db.selectFrom('tokens').select(['id', 'user_id']).where('name', '=', 'director-key').executeTakeFirstOrThrow();
    const usedBefore = await fixture.tokenUsed();
    const amount = expectedCharge('sora-2', 8);

    // A real upstream video, queued, for the key the task was submitted with.
    const upstreamVideo = await fetch(`${fixture.sora.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${upstreamKeys[0]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sora-2', prompt: 'crashed', seconds: '8' }),
    }).then((response) => response.json() as Promise<{ id: string }>);

    // What runTaskSubmit leaves when its process dies after markSubmitted and before settle/recordCharge:
    // an open reservation and a submitted row with no quota.
    const requestId = generateRequestId(fixture.now());
    expect(await services.relay.ledger.reserve({ id: requestId, tokenId: caller.id, userId: caller.user_id, amount }, fixture.now())).toEqual({ ok: true });
    const tasks = services.repositories.tasks;
    const taskId = await tasks.insert({ publicId: 'task_crashafteraccept000000000000000', kind: 'video', requestId, userId: caller.user_id, tokenId: caller.id, model: 'sora-2', properties: { seconds: 8 } }, fixture.now());
    const channel = services.catalog.snapshot.channels.find((candidate) => candidate.name === 'sora-up');
    expect(
      await tasks.markSubmitted(taskId, { channelId: channel!.id, keyFingerprint: keyFingerprint(upstreamKeys[0]!), upstreamModel: 'sora-2', upstreamId: upstreamVideo.id, status: 'queued', progress: 0, result: '{}', nextPollAt: fixture.now() }, fixture.now()),
    ).toBe(true);

    // The restart: recovery settles the reservation at its amount (the client has paid).
    await services.relay.ledger.recoverOpenReservations(fixture.now(), undefined, 'start');
    expect((await fixture.tokenUsed()) - usedBefore).toBe(amount);

    // The task runs on; the hourly retention sweep runs a day and a bit later; then the upstream fails it.
    fixture.advanceClock(25 * 3600_000);
    await runRetention(services.database, fixture.now(), 0);
    fixture.sora.advance(upstreamVideo.id, { status: 'failed', error: { code: 'internal_error', message: 'gave up' } });
    await fixture.poll();

    const row = await tasks.findById(taskId);
    expect(row).toMatchObject({ status: 'failure', refunded: 1 });
    // Now: refunded 0 (the reservation row that held the figure is gone). Should: the whole charge back.
    expect(Number(row?.quota)).toBe(amount);
    expect(await fixture.tokenUsed()).toBe(usedBefore);
  });
});
