/**
 * What a log row written back after a crash is made from, on each database: the reservation keeps the
 * model (its reserve's INSERT) and the channel (its settle's UPDATE), through the single routines and the
 * batch alike; a row is written back through the reservation's claim, so recoveries racing from two
 * processes write it once; a task's refund writes its row in its own transaction.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateRequestId } from '../../src/http/generate-request-id.js';
import type { RecoveredReservation } from '../../src/billing/quota-ledger.js';
import { buildLostLogRow, buildRecoveryLogRow } from '../../src/relay/build-recovery-log-row.js';
import { findUnloggedSettlements } from '../../src/storage/find-unlogged-settlements.js';
import { insertRecoveredLogRow } from '../../src/storage/insert-recovered-log-row.js';
import { refundLogStyle } from '../../src/storage/logs-repository.js';
import { TasksRepository } from '../../src/storage/tasks-repository.js';
import { buildRefundLogRow } from '../../src/tasks/build-refund-log-row.js';
import { logRow } from '../support/log-row.js';
import { allDialects } from '../support/test-databases.js';
import { openLedgerDatabase, type LedgerDatabase } from './ledger-test-setup.js';

const now = 1_780_000_000_000;

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`log row recovery from reservations on ${dialect}`, () => {
    let database: LedgerDatabase;
    let account: { userId: number; tokenId: number };
    let channelId: number;
    let run = 0;

    beforeAll(async () => {
      database = await openLedgerDatabase(dialect);
      channelId = await database.createChannel();
    });
    beforeEach(async () => {
      account = await database.createAccount({ user: 1_000_000, token: 1_000_000 });
      run += 1;
    });
    afterAll(async () => {
      await database?.close();
    });

    const owner = () => `node-${run}`;
    const requestId = (label: string) => `${generateRequestId(now)}-${run}-${label}`;

    async function reservationRow(id: string) {
      const row = await database.handle.db.selectFrom('quota_reservations').select(['model', 'channel_id', 'settled_amount']).where('id', '=', id).executeTakeFirstOrThrow();
      return { model: row.model, channelId: row.channel_id === null ? null : Number(row.channel_id), settled: row.settled_amount === null ? null : Number(row.settled_amount) };
    }

    it('keeps the model from the reserve and the channel from the settle, called alone and batched', async () => {
      const ledger = database.ledger(owner());
      const alone = requestId('alone');
      expect(await ledger.reserve({ id: alone, ...account, amount: 500, model: 'gpt-4o-mini' }, now)).toEqual({ ok: true });
      expect(await ledger.settle(alone, { actualAmount: 300, channelId }, now)).toEqual({ applied: true, charged: 300 });
      expect(await reservationRow(alone)).toEqual({ model: 'gpt-4o-mini', channelId, settled: 300 });

      // Calls of one turn go as one batch (PostgreSQL and MySQL) or one group commit (SQLite).
      const batched = Array.from({ length: 6 }, (_, index) => requestId(`batched-${index}`));
      const reserved = await Promise.all(batched.map((id, index) => ledger.reserve({ id, ...account, amount: 500, model: `model-${index}` }, now)));
      expect(reserved.every((outcome) => outcome.ok)).toBe(true);
      await Promise.all(batched.map((id, index) => ledger.settle(id, { actualAmount: 100, channelId: index % 2 === 0 ? channelId : undefined }, now)));
      expect(await Promise.all(batched.map(reservationRow))).toEqual(batched.map((_, index) => ({ model: `model-${index}`, channelId: index % 2 === 0 ? channelId : null, settled: 100 })));
    });

    it('recovers an open reservation with its model, and finds a lost settlement with its model and channel', async () => {
      const open = requestId('open');
      expect(await database.ledger(owner()).reserve({ id: open, ...account, amount: 700, model: 'claude-sonnet-4' }, now)).toEqual({ ok: true });
      const heard: RecoveredReservation[] = [];
      // As main.ts logs it: through the claim, so the lost-row look below does not find it again.
      await database.ledger(owner()).recoverOpenReservations(now + 1000, async (reservation) => {
        heard.push(reservation);
        await insertRecoveredLogRow(database.handle.db, reservation.id, buildRecoveryLogRow(reservation, 'token'), now + 1000);
      });
      expect(heard).toEqual([expect.objectContaining({ id: open, charged: 700, model: 'claude-sonnet-4', channelId: null })]);

      const lost = requestId('lost');
      const ledger = database.ledger(owner());
      await ledger.reserve({ id: lost, ...account, amount: 500, model: 'gpt-4o' }, now);
      await ledger.settle(lost, { actualAmount: 250, channelId }, now);
      const found = await findUnloggedSettlements(database.handle.db, owner(), now - 1000);
      expect(found).toEqual([expect.objectContaining({ id: lost, charged: 250, model: 'gpt-4o', channelId })]);
      const row = buildLostLogRow(found[0]!, 'token');
      expect(row).toMatchObject({ request_id: lost, model: 'gpt-4o', channel_id: channelId, quota: 250, usage_source: 'settled' });
    });

    it('finds the lost row of a request whose refund row was written (the refund row is not the request’s)', async () => {
      const ledger = database.ledger(owner());
      const submit = requestId('task');
      await ledger.reserve({ id: submit, ...account, amount: 400, model: 'sora-2' }, now);
      await ledger.settle(submit, { actualAmount: 400, channelId }, now);
      await database.handle.db.insertInto('logs').values(logRow({ request_id: submit, style: refundLogStyle, quota: -400, usage_source: 'refund' })).execute();
      expect((await findUnloggedSettlements(database.handle.db, owner(), now - 1000)).map((entry) => entry.id)).toEqual([submit]);
    });

    it('writes each lost row once when two processes recover the same settlements at once', async () => {
      const ledger = database.ledger(owner());
      const ids = Array.from({ length: 8 }, (_, index) => requestId(`race-${index}`));
      for (const id of ids) {
        await ledger.reserve({ id, ...account, amount: 100, model: 'gpt-4o' }, now);
        await ledger.settle(id, { actualAmount: 100, channelId }, now);
      }
      // SQLite: the one connection of this process (better-sqlite3 waits for a lock synchronously, so a
      // second handle here would block the first's COMMIT; processes on one file wait for each other).
      const other = dialect === 'sqlite' ? database.handle : await database.openAnotherHandle();
      // Both look before either writes: each finds every settlement without a row.
      const [foundFirst, foundSecond] = await Promise.all([findUnloggedSettlements(database.handle.db, owner(), now - 1000), findUnloggedSettlements(other.db, owner(), now - 1000)]);
      expect([foundFirst.length, foundSecond.length]).toEqual([ids.length, ids.length]);
      const writeBack = async (db: typeof other.db, lost: RecoveredReservation[]) => {
        let written = 0;
        for (const reservation of lost) if (await insertRecoveredLogRow(db, reservation.id, buildLostLogRow(reservation, 'token'), now + 5000)) written += 1;
        return written;
      };
      const [first, second] = await Promise.all([writeBack(database.handle.db, foundFirst), writeBack(other.db, [...foundSecond].reverse())]);
      expect(first + second).toBe(ids.length);
      const logs = await database.handle.db.selectFrom('logs').select(['request_id', 'quota']).where('request_id', 'in', ids).execute();
      expect(logs.map((entry) => entry.request_id).sort()).toEqual([...ids].sort());
      expect(logs.reduce((total, entry) => total + Number(entry.quota), 0)).toBe(100 * ids.length);
      // Claimed: nothing left to find, and a late recovery writes nothing.
      expect(await findUnloggedSettlements(database.handle.db, owner(), now - 1000)).toEqual([]);
      expect(await insertRecoveredLogRow(database.handle.db, ids[0]!, logRow({ request_id: ids[0]! }), now + 6000)).toBe(false);
    });

    it('writes a failed task’s refund row in the refund’s own transaction', async () => {
      const ledger = database.ledger(owner());
      const tasks = new TasksRepository(database.handle.db, database.handle.dialect);
      const submit = requestId('refund');
      await ledger.reserve({ id: submit, ...account, amount: 900, model: 'sora-2' }, now);
      await ledger.settle(submit, { actualAmount: 900, channelId }, now);
      const taskId = await tasks.insert({ publicId: `task_${run}_refund`, kind: 'video', requestId: submit, userId: account.userId, tokenId: account.tokenId, model: 'sora-2', properties: {} }, now);
      await tasks.markSubmitted(taskId, { channelId, keyFingerprint: 'f', upstreamModel: 'sora-2', upstreamId: `up-${run}`, status: 'queued', progress: 0, result: '{}', nextPollAt: now }, now);
      await tasks.recordCharge(taskId, 900);
      await tasks.applyChange(taskId, 'queued', { status: 'failure', progress: 0, failReason: 'moderation', nextPollAt: now }, now);

      const refund = await tasks.refundFailed(taskId, now + 10, (refunded) => buildRefundLogRow(refunded.task, refunded.quota, 'token', now + 10));
      expect(refund).toMatchObject({ quota: 900 });
      const rows = await database.handle.db.selectFrom('logs').select(['quota', 'style', 'model', 'channel_id']).where('request_id', '=', submit).execute();
      expect(rows.map((entry) => ({ ...entry, quota: Number(entry.quota), channel_id: Number(entry.channel_id) }))).toEqual([{ quota: -900, style: refundLogStyle, model: 'sora-2', channel_id: channelId }]);
      // Refunded once: a second call refunds nothing and writes no row.
      expect(await tasks.refundFailed(taskId, now + 20, (refunded) => buildRefundLogRow(refunded.task, refunded.quota, 'token', now + 20))).toBeUndefined();
      expect(await database.handle.db.selectFrom('logs').select('id').where('request_id', '=', submit).execute()).toHaveLength(1);
    });
  });
}
