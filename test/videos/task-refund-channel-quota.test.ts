import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/tasks/key-fingerprint.js';
import { waitFor } from '../billing-e2e/read-billing-state.js';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, startVideosFixture, upstreamKeys, type VideosFixture } from './videos-fixture.js';

/**
 * A failed task's refund takes its charge back from the channel's used quota exactly when a settle put it
 * there, whatever path the charge took to the task: settled at once, late from the settle retry queue,
 * settled with its record on the task row lost (a crash between the two, or the late record failing), or
 * settled by crash recovery. After the refund the channel counts nothing of the task, as the token and the
 * wallet do. On every database.
 */
describe.each(allDialects)('a failed task’s charge on its channel, on $dialect', ({ dialect, available }) => {
  let fixture: VideosFixture;
  let run = 0;

  beforeAll(async () => {
    if (!available) return;
    fixture = await startVideosFixture({ dialect });
  });
  afterAll(async () => {
    if (available) await fixture.close();
  });

  const services = () => fixture.gateway.gateway.services;
  const channelId = () => services().catalog.snapshot.channels.find((candidate) => candidate.name === 'sora-up')!.id;
  const channelUsed = async () => {
    await fixture.gateway.settled();
    const row = await services().database.db.selectFrom('channels').select(['used_quota']).where('id', '=', channelId()).executeTakeFirstOrThrow();
    return Number(row.used_quota);
  };
  const retriesDone = () => waitFor('the settle retries to go through', async () => (services().relay.settleRetries.size === 0 ? true : undefined));

  /** Fails the task upstream and runs the poll pass that refunds it. */
  async function failAndRefund(publicId: string): Promise<void> {
    const task = await fixture.task(publicId);
    fixture.sora.advance(task!.upstream_id!, { status: 'failed', error: { code: 'internal_error', message: 'Render farm on fire.' } });
    fixture.advanceClock(1);
    await fixture.poll();
    expect(await fixture.task(publicId)).toMatchObject({ status: 'failure', refunded: 1 });
  }

  /**
   * What a submit whose process dies after the upstream accepted the task leaves: an open reservation and
   * a task row on the channel with no charge recorded.
   */
  async function acceptedWithoutCharge(amount: number): Promise<{ requestId: string; publicId: string }> {
    run += 1;
    const caller = await services().database.db.selectFrom('tokens').select(['id', 'user_id']).where('name', '=', 'director-key').executeTakeFirstOrThrow();
    const upstreamVideo = await fetch(`${fixture.sora.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${upstreamKeys[0]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sora-2', prompt: 'crashed', seconds: '8' }),
    }).then((response) => response.json() as Promise<{ id: string }>);
    const requestId = `accepted-${dialect}-${run}-${Date.now()}`;
    const publicId = `task_${`channelquota${dialect}${run}`.padEnd(32, '0')}`;
    expect(await services().relay.ledger.reserve({ id: requestId, tokenId: caller.id, userId: caller.user_id, amount }, fixture.now())).toEqual({ ok: true });
    const tasks = services().repositories.tasks;
    const taskId = await tasks.insert({ publicId, kind: 'video', requestId, userId: caller.user_id, tokenId: caller.id, model: 'sora-2', properties: { seconds: 8 } }, fixture.now());
    const submitted = { channelId: channelId(), keyFingerprint: keyFingerprint(upstreamKeys[0]!), upstreamModel: 'sora-2', upstreamId: upstreamVideo.id, status: 'queued' as const, progress: 0, result: '{}', nextPollAt: fixture.now() };
    expect(await tasks.markSubmitted(taskId, submitted, fixture.now())).toBe(true);
    return { requestId, publicId };
  }

  it.skipIf(!available)('a submit settled late, from the retry queue, counts on its channel until its refund takes it back', async () => {
    const ledger = services().relay.ledger;
    const settle = ledger.settle;
    ledger.settle = async () => {
      ledger.settle = settle;
      throw new Error('connection lost');
    };
    const before = { channel: await channelUsed(), token: await fixture.tokenUsed() };
    try {
      const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'late settle', seconds: '8' });
      await retriesDone();
      const charge = expectedCharge('sora-2', 8);
      await waitFor('the late charge on the task row', async () => ((await fixture.task(video.id))?.quota === charge ? true : undefined));
      expect((await channelUsed()) - before.channel).toBe(charge);
      await failAndRefund(video.id);
    } finally {
      ledger.settle = settle;
    }
    expect({ channel: await channelUsed(), token: await fixture.tokenUsed() }).toEqual(before);
  });

  it.skipIf(!available)('a submit settled late whose charge never reached the task row is taken back from its channel too', async () => {
    const ledger = services().relay.ledger;
    const tasks = services().repositories.tasks;
    const settle = ledger.settle;
    const recordCharge = tasks.recordCharge;
    ledger.settle = async () => {
      ledger.settle = settle;
      throw new Error('connection lost');
    };
    // The database is lost again when the late settle's charge is written to the task row.
    let recordFailures = 0;
    tasks.recordCharge = async () => {
      recordFailures += 1;
      throw new Error('connection lost');
    };
    const before = { channel: await channelUsed(), token: await fixture.tokenUsed() };
    try {
      const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'late settle, lost record', seconds: '8' });
      await retriesDone();
      await waitFor('the late record to be tried', async () => (recordFailures > 0 ? true : undefined));
      // Still refused when tried again in the background (PendingSubmits.keepCharge): never on the row.
      expect(await fixture.task(video.id)).toMatchObject({ quota: null });
      expect((await channelUsed()) - before.channel).toBe(expectedCharge('sora-2', 8));
      await failAndRefund(video.id);
    } finally {
      ledger.settle = settle;
      tasks.recordCharge = recordCharge;
    }
    expect({ channel: await channelUsed(), token: await fixture.tokenUsed() }).toEqual(before);
  });

  it.skipIf(!available)('a submit whose process died between its settle and the record of its charge is taken back from its channel', async () => {
    const amount = expectedCharge('sora-2', 8);
    const before = { channel: await channelUsed(), token: await fixture.tokenUsed() };
    const { requestId, publicId } = await acceptedWithoutCharge(amount);
    // The settle went through (the served channel credited); the process died before recordCharge.
    expect(await services().relay.ledger.settle(requestId, { actualAmount: amount, channelId: channelId() }, fixture.now())).toEqual({ applied: true, charged: amount });
    expect((await channelUsed()) - before.channel).toBe(amount);
    // The restart finds nothing open.
    expect(await services().relay.ledger.recoverOpenReservations(fixture.now(), undefined, 'start')).toEqual({ settled: 0, quota: 0 });
    await failAndRefund(publicId);
    expect({ channel: await channelUsed(), token: await fixture.tokenUsed() }).toEqual(before);
  });

  it.skipIf(!available)('a submit whose process died before its settle is counted on its channel by crash recovery, and taken back by its refund', async () => {
    const amount = expectedCharge('sora-2', 8);
    const before = { channel: await channelUsed(), token: await fixture.tokenUsed() };
    const { publicId } = await acceptedWithoutCharge(amount);
    // The restart settles the reservation at its amount, on the channel that accepted the task.
    const recovered = await services().relay.ledger.recoverOpenReservations(fixture.now(), undefined, 'start');
    expect(recovered).toEqual({ settled: 1, quota: amount });
    expect({ channel: (await channelUsed()) - before.channel, token: (await fixture.tokenUsed()) - before.token }).toEqual({ channel: amount, token: amount });
    await failAndRefund(publicId);
    expect({ channel: await channelUsed(), token: await fixture.tokenUsed() }).toEqual(before);
  });
});
