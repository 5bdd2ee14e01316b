import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRequestId } from '../../src/http/generate-request-id.js';
import { deleteLogsBefore, deleteSettledReservations, requestIdFloor } from '../../src/storage/delete-old-rows.js';
import { LogsRepository } from '../../src/storage/logs-repository.js';
import { runRetention, settledReservationRetentionMs, startRetention } from '../../src/storage/start-retention.js';
import { TasksRepository } from '../../src/storage/tasks-repository.js';
import { logRow } from '../support/log-row.js';
import { allDialects } from '../support/test-databases.js';
import { openLedgerDatabase, type LedgerDatabase } from './ledger-test-setup.js';

const now = 1_770_000_000_000;
const hour = 60 * 60 * 1000;
const day = 24 * hour;

const logRowAt = (requestId: string, createdAt: number) => logRow({ request_id: requestId, created_at: createdAt });

describe('requestIdFloor', () => {
  it('orders below it exactly the request ids of earlier milliseconds', () => {
    const floor = requestIdFloor(now);
    expect(generateRequestId(now - 1) < floor).toBe(true);
    expect(generateRequestId(now) < floor).toBe(false);
    expect(generateRequestId(now + 1) < floor).toBe(false);
    // An id of another shape never sorts below a floor of hex digits.
    expect('recovered-1' < floor).toBe(false);
  });
});

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`deleting old rows on ${dialect}`, () => {
    let database: LedgerDatabase;

    beforeAll(async () => {
      database = await openLedgerDatabase(dialect);
    });
    afterAll(async () => {
      await database?.close();
    });

    const reservationIds = async () =>
      (await database.handle.db.selectFrom('quota_reservations').select('id').execute()).map((row) => row.id).sort();
    const balances = async (account: { userId: number; tokenId: number }) => {
      const user = await database.handle.db.selectFrom('users').select('quota').where('id', '=', account.userId).executeTakeFirstOrThrow();
      const token = await database.handle.db.selectFrom('tokens').select('remain_quota').where('id', '=', account.tokenId).executeTakeFirstOrThrow();
      return { user: Number(user.quota), token: Number(token.remain_quota) };
    };

    it('deletes settled reservations from before the cut, in batches, and keeps open ones and newer ones', async () => {
      const account = await database.createAccount({ user: 1_000_000, token: 1_000_000 });
      const ledger = database.ledger('node-a');
      const reserveAt = async (at: number, settleAt?: number, id = generateRequestId(at)) => {
        expect(await ledger.reserve({ id, ...account, amount: 100 }, at)).toEqual({ ok: true });
        if (settleAt !== undefined) expect((await ledger.settle(id, { actualAmount: 40, channelId: undefined }, settleAt)).applied).toBe(true);
        return id;
      };
      const old = [await reserveAt(now - 3 * day, now - 3 * day), await reserveAt(now - 3 * day + 1, now - 3 * day), await reserveAt(now - 2 * day, now - 2 * day)];
      const openOld = await reserveAt(now - 2 * day);
      // Created before the cut, settled after it: a long task's reservation. Kept until a day after its settle.
      const settledLate = await reserveAt(now - 2 * day, now - hour);
      const recent = await reserveAt(now - hour, now - hour);
      const otherShape = await reserveAt(now - 3 * day, now - 3 * day, 'x-not-a-time-id');
      const before = await balances(account);

      // Batches of two: three old rows take two full batches and a short one.
      expect(await deleteSettledReservations(database.handle.db, database.handle.dialect, now - day, 2)).toBe(3);
      expect(await reservationIds()).toEqual([openOld, settledLate, recent, otherShape].sort());
      expect(old.every((id) => id < requestIdFloor(now - day))).toBe(true);
      expect(await balances(account)).toEqual(before);

      // A late second settle of a deleted reservation, by a ledger that never saw it, changes nothing.
      const fresh = database.ledger('node-b');
      expect(await fresh.settle(old[0] as string, { actualAmount: 90, channelId: undefined }, now)).toEqual({ applied: false, charged: 0 });
      expect(await balances(account)).toEqual(before);
      // Open reservations stay for recovery to settle.
      const recovered = await database.ledger('node-a').recoverOpenReservations(now);
      expect(recovered.settled).toBe(1);
    });

    it('keeps a settled reservation while its task needs the figure (no charge recorded, not refunded, not succeeded)', async () => {
      const account = await database.createAccount({ user: 1_000_000, token: 1_000_000 });
      const ledger = database.ledger('node-d');
      const tasks = new TasksRepository(database.handle.db, database.handle.dialect);
      const settledTaskReservation = async (label: string, change: (taskId: number) => Promise<unknown>) => {
        const id = generateRequestId(now - 3 * day) + label;
        expect(await ledger.reserve({ id, ...account, amount: 100 }, now - 3 * day)).toEqual({ ok: true });
        expect((await ledger.settle(id, { actualAmount: 100, channelId: undefined }, now - 3 * day)).applied).toBe(true);
        const taskId = await tasks.insert({ publicId: `task_retention_${label}`, kind: 'video', requestId: id, userId: account.userId, tokenId: account.tokenId, model: 'sora-2', properties: {} }, now - 3 * day);
        await change(taskId);
        return id;
      };
      const submitted = (status: 'queued' | 'success') => (taskId: number) =>
        tasks.markSubmitted(taskId, { channelId: 1, keyFingerprint: 'f', upstreamModel: 'sora-2', upstreamId: `up-${taskId}`, status, progress: 0, result: '{}', nextPollAt: now }, now - 3 * day);
      // Needed: a running task and a failed one not yet refunded, neither with its charge on its row.
      const running = await settledTaskReservation('running', submitted('queued'));
      const failed = await settledTaskReservation('failed', async (taskId) => {
        await submitted('queued')(taskId);
        await tasks.applyChange(taskId, 'queued', { status: 'failure', progress: 0, failReason: 'x', nextPollAt: now }, now);
      });
      // Not needed: a task with its charge recorded, one that succeeded, one refunded.
      const recorded = await settledTaskReservation('recorded', async (taskId) => {
        await submitted('queued')(taskId);
        await tasks.recordCharge(taskId, 100);
      });
      const succeeded = await settledTaskReservation('succeeded', submitted('success'));
      const refunded = await settledTaskReservation('refunded', async (taskId) => {
        await submitted('queued')(taskId);
        await tasks.applyChange(taskId, 'queued', { status: 'failure', progress: 0, failReason: 'x', nextPollAt: now }, now);
        expect(await tasks.refundFailed(taskId, now)).toMatchObject({ quota: 100 });
      });

      await deleteSettledReservations(database.handle.db, database.handle.dialect, now - day, 2);
      const kept = await reservationIds();
      expect(kept).toEqual(expect.arrayContaining([running, failed]));
      for (const id of [recorded, succeeded, refunded]) expect(kept).not.toContain(id);

      // The failed task is refunded its charge; then its reservation goes at the next sweep.
      const failedTask = await database.handle.db.selectFrom('tasks').select('id').where('request_id', '=', failed).executeTakeFirstOrThrow();
      expect(await tasks.refundFailed(failedTask.id, now)).toMatchObject({ quota: 100 });
      await deleteSettledReservations(database.handle.db, database.handle.dialect, now - day);
      expect(await reservationIds()).not.toContain(failed);
      expect(await reservationIds()).toContain(running);
    });

    it('deletes log rows created before a time, and the retention run only when log_retention_days is set', async () => {
      const logs = new LogsRepository(database.handle.db);
      await logs.insertMany([logRowAt('log-old-1', now - 10 * day), logRowAt('log-old-2', now - 8 * day), logRowAt('log-week', now - 6 * day), logRowAt('log-new', now - hour)]);
      const requestIds = async () => (await database.handle.db.selectFrom('logs').select('request_id').execute()).map((row) => row.request_id).sort();

      const kept = await runRetention(database.handle, now, 0);
      expect(kept.logs).toBe(0);
      expect(await requestIds()).toEqual(['log-new', 'log-old-1', 'log-old-2', 'log-week']);

      const pruned = await runRetention(database.handle, now, 7);
      expect(pruned.logs).toBe(2);
      expect(await requestIds()).toEqual(['log-new', 'log-week']);

      expect(await deleteLogsBefore(database.handle.db, database.handle.dialect, now, 1)).toBe(2);
      expect(await requestIds()).toEqual([]);
    });

    it('runs on its own timer until stopped, reading the log retention at each run', async () => {
      const logs = new LogsRepository(database.handle.db);
      await logs.insertMany([logRowAt('timer-old', now - 3 * day), logRowAt('timer-new', now - hour)]);
      let retentionDays = 0;
      const errors: unknown[] = [];
      const retention = startRetention(database.handle, { logRetentionDays: () => retentionDays, now: () => now, onError: (error) => errors.push(error), firstRunMs: 1, intervalMs: 20 });
      const requestIds = async () => (await database.handle.db.selectFrom('logs').select('request_id').where('request_id', 'like', 'timer-%').execute()).map((row) => row.request_id).sort();
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await requestIds()).toEqual(['timer-new', 'timer-old']);
      retentionDays = 1;
      await expect.poll(requestIds, { timeout: 5_000 }).toEqual(['timer-new']);
      await retention.stop();
      await logs.insertMany([logRowAt('timer-after-stop', now - 3 * day)]);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await requestIds()).toEqual(['timer-after-stop', 'timer-new']);
      expect(errors).toEqual([]);
    });

    it('settles stale reservations at every run, and deletes old rows even when that fails', async () => {
      const logs = new LogsRepository(database.handle.db);
      await logs.insertMany([logRowAt('sweep-old', now - 3 * day)]);
      let recoveries = 0;
      const errors: unknown[] = [];
      const retention = startRetention(database.handle, {
        logRetentionDays: () => 1,
        recoverStale: async () => {
          recoveries += 1;
          throw new Error('recovery failed');
        },
        now: () => now,
        onError: (error) => errors.push(error),
        firstRunMs: 1,
        intervalMs: 20,
      });
      const requestIds = async () => (await database.handle.db.selectFrom('logs').select('request_id').where('request_id', 'like', 'sweep-%').execute()).map((row) => row.request_id);
      await expect.poll(requestIds, { timeout: 5_000 }).toEqual([]);
      await expect.poll(() => recoveries, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
      await retention.stop();
      expect(errors.length).toBeGreaterThanOrEqual(1);
      expect(errors.every((error) => (error as Error).message === 'recovery failed')).toBe(true);
    });

    it('keeps a day of settled reservations in the retention run', async () => {
      const account = await database.createAccount({ user: 1_000_000, token: 1_000_000 });
      const ledger = database.ledger('node-c');
      const id = generateRequestId(now - 2 * hour);
      await ledger.reserve({ id, ...account, amount: 10 }, now - 2 * hour);
      await ledger.settle(id, { actualAmount: 10, channelId: undefined }, now - 2 * hour);
      await runRetention(database.handle, now, 0);
      expect(await reservationIds()).toContain(id);
      await runRetention(database.handle, now - 2 * hour + settledReservationRetentionMs + 1, 0);
      expect(await reservationIds()).not.toContain(id);
    });
  });
}
