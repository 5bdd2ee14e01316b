import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createQuotaLedger } from '../../src/billing/create-quota-ledger.js';
import { SqlQuotaLedger, staleReservationMs } from '../../src/billing/sql-quota-ledger.js';
import { TasksRepository } from '../../src/storage/tasks-repository.js';
import { allDialects } from '../support/test-databases.js';
import { openLedgerDatabase, type LedgerDatabase } from './ledger-test-setup.js';

const now = 1_760_000_000_000;
const hour = 60 * 60 * 1000;

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`QuotaLedger crash recovery on ${dialect}`, () => {
    let database: LedgerDatabase;
    let account: { userId: number; tokenId: number };
    let run = 0;

    beforeAll(async () => {
      database = await openLedgerDatabase(dialect);
    });
    beforeEach(async () => {
      account = await database.createAccount({ user: 100_000, token: 50_000 });
      run += 1;
    });
    afterAll(async () => {
      await database?.close();
    });

    async function state(id: string) {
      const row = await database.handle.db.selectFrom('quota_reservations').select(['state', 'settled_amount']).where('id', '=', id).executeTakeFirstOrThrow();
      return { state: row.state, settled: row.settled_amount === null ? null : Number(row.settled_amount) };
    }

    /**
     * Owner names are new in each scenario, so what one scenario leaves open (only recent reservations)
     * is invisible to the next one's recovery.
     */
    const node = (name: string) => `${name}-${run}`;

    async function leaveOpen(owner: string, id: string, amount: number, createdAt: number) {
      expect(await database.ledger(node(owner)).reserve({ id: `${run}-${id}`, ...account, amount }, createdAt)).toEqual({ ok: true });
      return `${run}-${id}`;
    }

    it('settles at its reserved amount what this owner left open, and leaves another owner’s recent reservations alone', async () => {
      const crashed = await leaveOpen('node-a', 'crashed', 1000, now - hour);
      const live = await leaveOpen('node-b', 'live', 2000, now - hour);

      expect(await database.ledger(node('node-a')).recoverOpenReservations(now)).toEqual({ settled: 1, quota: 1000 });
      expect(await state(crashed)).toEqual({ state: 'settled', settled: 1000 });
      expect(await state(live)).toEqual({ state: 'reserved', settled: null });

      const token = await database.tokens.get(account.tokenId);
      const user = await database.users.get(account.userId);
      // 50,000 − 1,000 charged − 2,000 still held by node-b.
      expect({ remain: token?.remainQuota, used: token?.usedQuota, requests: token?.requestCount }).toEqual({ remain: 47_000, used: 1000, requests: 1 });
      expect({ quota: user?.quota, used: user?.usedQuota }).toEqual({ quota: 97_000, used: 1000 });
    });

    it('leaves another owner’s reservation alone until it is older than 24 hours, then settles it too', async () => {
      const recent = await leaveOpen('node-a', 'recent', 1000, now - staleReservationMs + 1);
      const stale = await leaveOpen('node-a', 'stale', 700, now - staleReservationMs - 1);

      expect(await database.ledger(node('node-b')).recoverOpenReservations(now)).toEqual({ settled: 1, quota: 700 });
      expect(await state(recent)).toEqual({ state: 'reserved', settled: null });
      expect(await state(stale)).toEqual({ state: 'settled', settled: 700 });
    });

    it("the hourly sweep ('stale') settles only what is older than 24 hours, never this owner's own in-flight reservations", async () => {
      const inFlight = await leaveOpen('node-a', 'in-flight', 1000, now - hour);
      const recentElsewhere = await leaveOpen('node-b', 'recent', 900, now - staleReservationMs + 1);
      const abandoned = await leaveOpen('node-gone', 'abandoned', 700, now - staleReservationMs - 1);

      expect(await database.ledger(node('node-a')).recoverOpenReservations(now, undefined, 'stale')).toEqual({ settled: 1, quota: 700 });
      expect(await state(inFlight)).toEqual({ state: 'reserved', settled: null });
      expect(await state(recentElsewhere)).toEqual({ state: 'reserved', settled: null });
      expect(await state(abandoned)).toEqual({ state: 'settled', settled: 700 });
    });

    it('does nothing the second time, and never settles twice when two instances recover at once', async () => {
      const ids = [];
      for (let index = 0; index < 10; index += 1) ids.push(await leaveOpen('node-a', `open-${index}`, 100 * (index + 1), now - hour));
      // A second process has its own pool; SQLite's synchronous driver shares one handle per process.
      const other = dialect === 'sqlite' ? database.handle : await database.openAnotherHandle();
      const [first, second] = await Promise.all([
        database.ledger(node('node-a')).recoverOpenReservations(now),
        createQuotaLedger(other, node('node-a')).recoverOpenReservations(now),
      ]);
      // 100 + 200 + … + 1,000 = 5,500, settled once between the two.
      expect((first?.settled ?? 0) + (second?.settled ?? 0)).toBe(10);
      expect((first?.quota ?? 0) + (second?.quota ?? 0)).toBe(5500);
      expect(await database.ledger(node('node-a')).recoverOpenReservations(now)).toEqual({ settled: 0, quota: 0 });
      const token = await database.tokens.get(account.tokenId);
      expect({ remain: token?.remainQuota, used: token?.usedQuota, requests: token?.requestCount }).toEqual({ remain: 44_500, used: 5500, requests: 10 });
      for (const id of ids) expect((await state(id)).state).toBe('settled');
    });

    for (const [name, ledgerOf] of [
      ['the wired ledger', (owner: string) => database.ledger(owner)],
      ['SqlQuotaLedger', (owner: string) => new SqlQuotaLedger(database.handle.db, dialect, owner)],
    ] as const) {
      it(`${name}: a task's reservation is recovered on the channel that accepted the task, any other on none`, async () => {
        const channelId = await database.createChannel();
        const tasks = new TasksRepository(database.handle.db, database.handle.dialect);
        const accepted = await leaveOpen('node-a', 'accepted-task', 1000, now - hour);
        const notAccepted = await leaveOpen('node-a', 'unaccepted-task', 300, now - hour);
        await leaveOpen('node-a', 'request', 200, now - hour);
        const task = (requestId: string) => tasks.insert({ publicId: `task_${requestId.replace(/[^a-z0-9]/g, '').padEnd(32, '0')}`, kind: 'video', requestId, ...account, model: 'sora-2', properties: {} }, now - hour);
        const acceptedId = await task(accepted);
        await task(notAccepted);
        const submitted = { channelId, keyFingerprint: 'fingerprint', upstreamModel: 'sora-2', upstreamId: 'video_1', status: 'queued' as const, progress: 0, result: '{}', nextPollAt: now };
        expect(await tasks.markSubmitted(acceptedId, submitted, now - hour)).toBe(true);

        expect(await ledgerOf(node('node-a')).recoverOpenReservations(now)).toEqual({ settled: 3, quota: 1500 });
        const channel = await database.channels.get(channelId);
        expect({ used: channel?.usedQuota, requests: channel?.requestCount }).toEqual({ used: 1000, requests: 1 });
      });
    }
  });
}
