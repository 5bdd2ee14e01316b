/**
 * What a log row written back after a crash is made from, on each database: the reservation keeps the
 * model (its reserve's INSERT) and the channel (its settle's UPDATE), through the single routines and the
 * batch alike; a row is written back through the reservation's claim, so recoveries racing from two
 * processes write it once; a task's refund writes its row in its own transaction. A node cut off from
 * the database for hours, taken for dead, writes the rows it held through the same claims when it
 * reaches the database again; a connected node's rows stay one plain INSERT.
 */
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateRequestId } from '../../src/http/generate-request-id.js';
import type { RecoveredReservation } from '../../src/billing/quota-ledger.js';
import { createLogRowSink } from '../../src/logging/create-log-row-sink.js';
import { createLogWriter, type LogRowSink } from '../../src/logging/log-writer.js';
import { claimLogRowsAfterMs, deadRunAfterMs, foreignSettlementGraceMs } from '../../src/logging/recover-lost-log-rows.js';
import type { DatabaseHandle } from '../../src/storage/create-database.js';
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
const hour = 60 * 60 * 1000;

/** The sink of `handle` behind a switch that refuses every write while the node is cut off, counting the calls of each kind. */
function cutOffSink(handle: DatabaseHandle) {
  const { sink } = createLogRowSink(handle);
  const state = { cutOff: false, plain: [] as number[], once: [] as number[] };
  const refuse = () => {
    if (state.cutOff) throw new Error('connect ECONNREFUSED');
  };
  const wrapped: LogRowSink = {
    async insertMany(rows) {
      refuse();
      state.plain.push(rows.length);
      await sink.insertMany(rows);
    },
    async insertManyOnce(rows, at) {
      refuse();
      state.once.push(rows.length);
      await sink.insertManyOnce(rows, at);
    },
  };
  return { sink: wrapped, state };
}

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

    async function loggedRows(ids: string[]) {
      const rows = await database.handle.db.selectFrom('logs').select(['request_id', 'style', 'quota']).where('request_id', 'in', ids).orderBy('id').execute();
      return rows.map((row) => ({ request_id: row.request_id, style: row.style, quota: Number(row.quota) }));
    }

    async function claimedAt(id: string) {
      const row = await database.handle.db.selectFrom('quota_reservations').select('log_recovered_at').where('id', '=', id).executeTakeFirstOrThrow();
      return row.log_recovered_at === null ? null : Number(row.log_recovered_at);
    }

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

    it('writes the rows a node cut off for hours held once: those another node wrote back meanwhile are left out, the others claim their reservations', async () => {
      const ledger = database.ledger(owner());
      const charged = Array.from({ length: 4 }, (_, index) => requestId(`held-${index}`));
      for (const id of charged) {
        await ledger.reserve({ id, ...account, amount: 100, model: 'gpt-4o' }, now);
        await ledger.settle(id, { actualAmount: 100, channelId }, now);
      }
      // A request that reserved nothing (a free one): never written back, so its row is written as it is.
      const free = requestId('free');
      let clock = now;
      const { sink, state } = cutOffSink(database.handle);
      const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 100, now: () => clock, onError: () => {} });
      state.cutOff = true;
      const rowOf = (id: string) => logRow({ request_id: id, created_at: now - 2000, latency_ms: 1500, user_id: account.userId, token_id: account.tokenId, channel_id: channelId, quota: id === free ? 0 : 100 });
      for (const id of [...charged, free]) writer.write(rowOf(id));
      await writer.flush();
      expect(await loggedRows([...charged, free])).toEqual([]);

      // Seven hours on, the run has not beaten for six: another node writes back the charges settled over
      // an hour ago without a row — two of them before this node reaches the database again.
      clock = now + deadRunAfterMs + hour;
      const other = dialect === 'sqlite' ? database.handle : await database.openAnotherHandle();
      const lost = await findUnloggedSettlements(other.db, owner(), now - 60_000, clock - foreignSettlementGraceMs);
      expect(lost.map((entry) => entry.id).sort()).toEqual([...charged].sort());
      const [writtenBack, held] = [lost.slice(0, 2), lost.slice(2)];
      for (const reservation of writtenBack) expect(await insertRecoveredLogRow(other.db, reservation.id, buildLostLogRow(reservation, 'token'), clock)).toBe(true);

      state.cutOff = false;
      clock += 60_000;
      await writer.flush();
      const rows = await loggedRows([...charged, free]);
      expect(rows.map((row) => row.request_id).sort()).toEqual([...charged, free].sort());
      expect(state).toMatchObject({ plain: [], once: [5] });
      const styles = Object.fromEntries(rows.map((row) => [row.request_id, row.style]));
      expect(styles).toEqual({ ...Object.fromEntries(writtenBack.map((entry) => [entry.id, 'recovery'])), ...Object.fromEntries(held.map((entry) => [entry.id, 'openai'])), [free]: 'openai' });
      expect(rows.reduce((total, row) => total + row.quota, 0)).toBe(400);
      // The rows this node wrote hold their reservations' claims: a recovery after it writes nothing.
      expect(await Promise.all(held.map((entry) => claimedAt(entry.id)))).toEqual([clock, clock]);
      expect(await findUnloggedSettlements(other.db, owner(), now - 60_000, clock - foreignSettlementGraceMs)).toEqual([]);
      expect(await insertRecoveredLogRow(other.db, held[0]!.id, buildLostLogRow(held[0]!, 'token'), clock)).toBe(false);
      expect(await writer.close()).toBe(0);
    });

    it('writes held rows once when the answer to their write was lost: the request’s row, which claims its reservation, and a refund row', async () => {
      const ledger = database.ledger(owner());
      const submit = requestId('held-task');
      await ledger.reserve({ id: submit, ...account, amount: 300, model: 'sora-2' }, now);
      await ledger.settle(submit, { actualAmount: 300, channelId }, now);
      const { sink } = createLogRowSink(database.handle);
      let answers = 0;
      const clock = now + claimLogRowsAfterMs + 1000;
      const writer = createLogWriter(
        {
          insertMany: () => Promise.reject(new Error('no row here is fresh')),
          // The first write commits, and its answer is lost.
          async insertManyOnce(rows, at) {
            await sink.insertManyOnce(rows, at);
            if ((answers += 1) === 1) throw new Error('connection reset');
          },
        },
        { flushIntervalMs: 60_000, maxBatch: 100, now: () => clock, onError: () => {} },
      );
      writer.write(logRow({ request_id: submit, created_at: now, latency_ms: 0, quota: 300 }));
      writer.write(logRow({ request_id: submit, created_at: now, latency_ms: 0, quota: -300, style: refundLogStyle, usage_source: 'refund' }));
      await writer.flush();
      await writer.flush();
      expect(answers).toBe(2);
      expect(await loggedRows([submit])).toEqual([
        { request_id: submit, style: 'openai', quota: 300 },
        { request_id: submit, style: refundLogStyle, quota: -300 },
      ]);
      // The request's row claimed its reservation; the refund row claims nothing.
      expect(await claimedAt(submit)).toBe(clock);
      expect(await writer.close()).toBe(0);
    });

    // What the log writer's claim path relies on: every producer gives each non-refund row an id of its own
    // (a request's, or a Realtime response's hold id; test/billing/one-row-per-request.test.ts pins that
    // end to end). Two non-refund rows under one id in a slice through the claims: the second is taken for
    // a row written back already and left out — as is one whose request already has a row in the log.
    it('leaves out, through the claims, a second non-refund row under a request id already written (the one-id-per-row invariant is what keeps that right)', async () => {
      const ledger = database.ledger(owner());
      const charged = requestId('twice-charged');
      await ledger.reserve({ id: charged, ...account, amount: 100, model: 'gpt-4o' }, now);
      await ledger.settle(charged, { actualAmount: 100, channelId }, now);
      const free = requestId('twice-free');
      const { sink } = createLogRowSink(database.handle);
      const clock = now + claimLogRowsAfterMs + 1000;
      const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 100, now: () => clock, onError: () => {} });
      // In one slice: two rows of the charged request and two of the free one, then a refund row.
      writer.write(logRow({ request_id: charged, created_at: now, latency_ms: 0, quota: 100 }));
      writer.write(logRow({ request_id: charged, created_at: now, latency_ms: 0, quota: 70 }));
      writer.write(logRow({ request_id: free, created_at: now, latency_ms: 0, quota: 0 }));
      writer.write(logRow({ request_id: free, created_at: now, latency_ms: 0, quota: 0, status: 500 }));
      writer.write(logRow({ request_id: charged, created_at: now, latency_ms: 0, quota: -100, style: refundLogStyle, usage_source: 'refund' }));
      await writer.flush();
      expect(await loggedRows([charged, free])).toEqual([
        { request_id: charged, style: 'openai', quota: 100 },
        { request_id: free, style: 'openai', quota: 0 },
        { request_id: charged, style: refundLogStyle, quota: -100 },
      ]);
      expect(await claimedAt(charged)).toBe(clock);
      // In a later slice: the request has its row, so another under its id is left out too.
      writer.write(logRow({ request_id: free, created_at: now, latency_ms: 0, quota: 5 }));
      await writer.flush();
      expect((await loggedRows([free])).map((row) => row.quota)).toEqual([0]);
      expect(await writer.close()).toBe(0);
    });

    it('writes a connected node’s rows as one plain INSERT, claiming nothing', async () => {
      const ledger = database.ledger(owner());
      const ids = Array.from({ length: 3 }, (_, index) => requestId(`fresh-${index}`));
      for (const id of ids) {
        await ledger.reserve({ id, ...account, amount: 100, model: 'gpt-4o' }, now);
        await ledger.settle(id, { actualAmount: 100, channelId }, now);
      }
      // Every statement the query builder sends (PostgreSQL, MySQL); SQLite's rows go as the group commit's prepared INSERT.
      const statements: string[] = [];
      const counting: KyselyPlugin = {
        transformQuery: (args) => {
          statements.push(args.node.kind);
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      const { sink, state } = cutOffSink({ ...database.handle, db: database.handle.db.withPlugin(counting) });
      // Rows made a second ago, a minute ago, and just under the age at which they would go through the claims.
      const clock = now + 60_000;
      const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 100, now: () => clock, onError: () => {} });
      writer.write(logRow({ request_id: ids[0]!, created_at: clock - 1000, latency_ms: 900 }));
      writer.write(logRow({ request_id: ids[1]!, created_at: now, latency_ms: 0 }));
      writer.write(logRow({ request_id: ids[2]!, created_at: clock - claimLogRowsAfterMs - 60_000, latency_ms: 60_000 }));
      await writer.flush();
      expect(state).toMatchObject({ plain: [3], once: [] });
      expect(statements).toEqual(dialect === 'sqlite' ? [] : ['InsertQueryNode']);
      expect((await loggedRows(ids)).map((row) => row.request_id)).toEqual(ids);
      expect(await Promise.all(ids.map(claimedAt))).toEqual([null, null, null]);
      expect(await writer.close()).toBe(0);
    });
  });
}
