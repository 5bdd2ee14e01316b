import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdmin } from '../admin/admin-client.js';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, otherUserKey, startVideosFixture, type VideosFixture } from './videos-fixture.js';

/**
 * From the inflight audit, on every database: a video task is money in flight for up to
 * TASK_TIMEOUT_MINUTES, and an admin may switch a wallet's `unlimited_quota` meanwhile. The refund gives
 * the charge back to exactly the wallets it left at the submit's settlement (`token_debited`,
 * `user_debited`, migration 017), not to those limited at refund time: unlimited → limited minted the
 * charge, limited → unlimited lost it. The switch itself moves only open reservations; a task's is settled.
 */
describe.each(allDialects)('a failed task refunded after its wallet switched unlimited_quota, on $dialect', ({ dialect, available }) => {
  let fixture: VideosFixture;
  beforeAll(async () => {
    if (!available) return;
    fixture = await startVideosFixture({ dialect });
  }, 30_000);
  afterAll(async () => {
    await fixture?.close();
  });

  async function wallet(table: 'users' | 'tokens', name: string) {
    await fixture.gateway.settled();
    const { db } = fixture.gateway.gateway.services.database;
    if (table === 'users') {
      const row = await db.selectFrom('users').select(['id', 'quota', 'used_quota']).where('username', '=', name).executeTakeFirstOrThrow();
      return { id: Number(row.id), balance: Number(row.quota), used: Number(row.used_quota) };
    }
    const row = await db.selectFrom('tokens').select(['id', 'remain_quota', 'used_quota']).where('name', '=', name).executeTakeFirstOrThrow();
    return { id: Number(row.id), balance: Number(row.remain_quota), used: Number(row.used_quota) };
  }

  async function setUnlimited(table: 'users' | 'tokens', id: number, unlimited: boolean) {
    expect((await callAdmin(fixture.gateway, 'PUT', `/api/admin/${table}/${id}`, { body: { unlimited_quota: unlimited } })).status).toBe(200);
  }

  async function failTask(videoId: string) {
    const task = await fixture.task(videoId);
    fixture.sora.advance(task?.upstream_id as string, { status: 'failed', error: { code: 'internal_error', message: 'gave up' } });
    fixture.advanceClock(1);
    await fixture.poll();
    expect(await fixture.task(videoId)).toMatchObject({ status: 'failure', refunded: 1 });
  }

  async function submit() {
    const video = await fixture.clientWith(otherUserKey).videos.create({ model: 'sora-2', prompt: 'doomed', seconds: '8' });
    // The submit's reservation is settled (a task runs for minutes after it): nothing is open any more.
    await fixture.gateway.settled();
    return video;
  }

  it.skipIf(!available)('user unlimited at submit, limited at refund: the refund mints nothing into the user balance', async () => {
    const user = await wallet('users', 'other');
    await setUnlimited('users', user.id, true);
    const video = await submit();
    expect(await fixture.task(video.id)).toMatchObject({ quota: expectedCharge('sora-2', 8), token_debited: 1, user_debited: 0 });
    await setUnlimited('users', user.id, false);
    expect((await wallet('users', 'other')).balance).toBe(user.balance);
    await failTask(video.id);
    // The user paid nothing for the task (unlimited then): it must not be handed its charge.
    expect(await wallet('users', 'other')).toEqual(user);
  });

  it.skipIf(!available)('token unlimited at submit, limited at refund: the refund mints nothing into the token balance', async () => {
    const token = await wallet('tokens', 'other-key');
    await setUnlimited('tokens', token.id, true);
    const video = await submit();
    await setUnlimited('tokens', token.id, false);
    await failTask(video.id);
    expect(await wallet('tokens', 'other-key')).toEqual(token);
  });

  it.skipIf(!available)('user limited at submit, unlimited at refund and limited again: the paid charge comes back', async () => {
    const user = await wallet('users', 'other');
    const video = await submit();
    expect((await wallet('users', 'other')).balance).toBe(user.balance - expectedCharge('sora-2', 8));
    await setUnlimited('users', user.id, true);
    await failTask(video.id);
    await setUnlimited('users', user.id, false);
    // The user paid the task while limited; the refund must not be dropped because it was unlimited at that moment.
    expect(await wallet('users', 'other')).toEqual(user);
  });

  // The other refund path: a crash kept the charge off the task's row, so it is refunded from its
  // reservation, whose settle by crash recovery recorded the wallets it charged.
  it.skipIf(!available)('a crashed submit settled by recovery while its user was unlimited refunds nothing into the user once limited', async () => {
    const services = fixture.gateway.gateway.services;
    const user = await wallet('users', 'other');
    const token = await wallet('tokens', 'other-key');
    const amount = expectedCharge('sora-2', 12);
    const requestId = `switched-${dialect}-${Date.now()}`;
    // What a submit leaves when its process dies during the upstream call: a reservation (taken from both
    // limited wallets) and a `not_start` row.
    expect(await services.relay.ledger.reserve({ id: requestId, tokenId: token.id, userId: user.id, amount }, fixture.now())).toEqual({ ok: true });
    const publicId = `task_switched${dialect}`;
    await services.repositories.tasks.insert({ publicId, kind: 'video', requestId, userId: user.id, tokenId: token.id, model: 'sora-2', properties: { seconds: 12 } }, fixture.now());
    // Made unlimited while the reservation is open: the switch hands the reservation back to the balance.
    await setUnlimited('users', user.id, true);
    expect((await wallet('users', 'other')).balance).toBe(user.balance);

    fixture.advanceClock(16 * 60_000);
    await fixture.poll();
    expect(await fixture.task(publicId)).toMatchObject({ status: 'failure', refunded: 0 });
    // Recovery settles the reservation while the user is unlimited: the charge leaves the token alone.
    await services.relay.ledger.recoverOpenReservations(fixture.now(), undefined, 'start');
    await setUnlimited('users', user.id, false);
    fixture.advanceClock(1);
    await fixture.poll();
    expect(await fixture.task(publicId)).toMatchObject({ status: 'failure', refunded: 1, quota: amount, token_debited: 1, user_debited: 0 });
    expect(await wallet('users', 'other')).toEqual(user);
    expect(await wallet('tokens', 'other-key')).toEqual(token);
  });

  it.skipIf(!available)('a task settled before the wallets were recorded is refunded by the flags at refund time, as before', async () => {
    const { db } = fixture.gateway.gateway.services.database;
    const token = await wallet('tokens', 'other-key');
    const video = await submit();
    // A row from before migration 017.
    await db.updateTable('tasks').set({ token_debited: null, user_debited: null }).where('public_id', '=', video.id).execute();
    await failTask(video.id);
    expect(await wallet('tokens', 'other-key')).toEqual(token);
  });
});
