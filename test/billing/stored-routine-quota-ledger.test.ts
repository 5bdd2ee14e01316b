import { sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuotaLedger } from '../../src/billing/quota-ledger.js';
import { SqlQuotaLedger } from '../../src/billing/sql-quota-ledger.js';
import { StoredRoutineQuotaLedger } from '../../src/billing/stored-routine-quota-ledger.js';
import { allDialects } from '../support/test-databases.js';
import { openLedgerDatabase, type LedgerDatabase } from './ledger-test-setup.js';

const now = 1_760_000_000_000;
let nextId = 0;
const requestId = () => `routine-${(nextId += 1)}`;

/** Counts the statements a ledger sends through Kysely: each one is a round trip to the server. */
function statementCounter(): { plugin: KyselyPlugin; count: () => number } {
  let statements = 0;
  return {
    plugin: {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements += 1;
        return args.result;
      },
    },
    count: () => statements,
  };
}

for (const { dialect, available } of allDialects.filter((entry) => entry.dialect !== 'sqlite')) {
  describe.skipIf(!available)(`StoredRoutineQuotaLedger on ${dialect}`, () => {
    let database: LedgerDatabase;
    beforeAll(async () => {
      database = await openLedgerDatabase(dialect);
    });
    afterAll(async () => {
      await database?.close();
    });

    const routineLedger = (db = database.handle.db) => new StoredRoutineQuotaLedger(db, dialect as 'postgres' | 'mysql', 'node-a');

    async function balances(account: { userId: number; tokenId: number }) {
      const token = await database.tokens.get(account.tokenId);
      const user = await database.users.get(account.userId);
      return { token: { remain: token?.remainQuota, used: token?.usedQuota, requests: token?.requestCount }, user: { quota: user?.quota, used: user?.usedQuota, requests: user?.requestCount } };
    }

    it('reserves and settles in one statement each', async () => {
      const account = await database.createAccount({ user: 10_000, token: 10_000 });
      const channelId = await database.createChannel();
      const counter = statementCounter();
      const ledger = routineLedger(database.handle.db.withPlugin(counter.plugin));
      const id = requestId();
      expect(await ledger.reserve({ id, ...account, amount: 1000 }, now)).toEqual({ ok: true });
      expect(counter.count()).toBe(1);
      expect(await ledger.settle(id, { actualAmount: 1500, channelId }, now)).toEqual({ applied: true, charged: 1500 });
      expect(counter.count()).toBe(2);
      expect(await ledger.reserve({ id: requestId(), ...account, amount: 20_000 }, now)).toEqual({ ok: false, short: 'token' });
      expect(counter.count()).toBe(3);
    });

    it('undoes the token debit of a reservation whose id is already taken, and throws', async () => {
      const account = await database.createAccount({ user: 10_000, token: 10_000 });
      const id = requestId();
      expect(await routineLedger().reserve({ id, ...account, amount: 1000 }, now)).toEqual({ ok: true });
      await expect(routineLedger().reserve({ id, ...account, amount: 2000 }, now)).rejects.toThrow();
      expect(await balances(account)).toEqual({ token: { remain: 9000, used: 0, requests: 0 }, user: { quota: 9000, used: 0, requests: 0 } });
    });

    it('refuses a short user of an unlimited token without moving either balance', async () => {
      const account = await database.createAccount({ user: 500, token: null });
      expect(await routineLedger().reserve({ id: requestId(), ...account, amount: 1000 }, now)).toEqual({ ok: false, short: 'user' });
      expect(await balances(account)).toEqual({ token: { remain: 0, used: 0, requests: 0 }, user: { quota: 500, used: 0, requests: 0 } });
    });

    it('answers short "token" for a token that does not exist and short "user" for a missing user, debiting nothing', async () => {
      const account = await database.createAccount({ user: 10_000, token: 10_000 });
      expect(await routineLedger().reserve({ id: requestId(), tokenId: 987_654, userId: account.userId, amount: 10 }, now)).toEqual({ ok: false, short: 'token' });
      expect(await routineLedger().reserve({ id: requestId(), tokenId: account.tokenId, userId: 987_654, amount: 10 }, now)).toEqual({ ok: false, short: 'user' });
      expect(await balances(account)).toEqual({ token: { remain: 10_000, used: 0, requests: 0 }, user: { quota: 10_000, used: 0, requests: 0 } });
    });

    it('charges only the reservation when the token row went away before settlement', async () => {
      const account = await database.createAccount({ user: 10_000, token: 10_000 });
      const id = requestId();
      await routineLedger().reserve({ id, ...account, amount: 1000 }, now);
      await database.handle.db.deleteFrom('tokens').where('id', '=', account.tokenId).execute();
      expect(await routineLedger().settle(id, { actualAmount: 4000, channelId: undefined }, now)).toEqual({ applied: true, charged: 1000 });
      const user = await database.users.get(account.userId);
      expect({ quota: user?.quota, used: user?.usedQuota }).toEqual({ quota: 9000, used: 1000 });
    });

    it('applies exactly one of several concurrent settles of one reservation, from several processes', async () => {
      const account = await database.createAccount({ user: 10_000, token: 10_000 });
      const handles = [database.handle.db, (await database.openAnotherHandle()).db, (await database.openAnotherHandle()).db];
      // Connections opened beforehand, so that the settles really run at the same time.
      await Promise.all(handles.flatMap((db) => Array.from({ length: 8 }, () => sql`select 1`.execute(db))));
      const ledgers = handles.map((db) => routineLedger(db));
      const id = requestId();
      expect(await ledgers[0]?.reserve({ id, ...account, amount: 1000 }, now)).toEqual({ ok: true });
      // Another transaction holds the token row meanwhile, so every settle is under way before any can finish.
      const blocker = await database.handle.db.startTransaction().execute();
      await sql`select id from tokens where id = ${account.tokenId} for update`.execute(blocker);
      const settling = Promise.all(Array.from({ length: 24 }, (_, index) => (ledgers[index % 3] as QuotaLedger).settle(id, { actualAmount: 1500 + index, channelId: undefined }, now)));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await blocker.commit().execute();
      const outcomes = await settling;
      const applied = outcomes.filter((outcome) => outcome.applied);
      expect(applied).toHaveLength(1);
      const charged = applied[0]?.charged ?? 0;
      expect(await balances(account)).toEqual({
        token: { remain: 10_000 - charged, used: charged, requests: 1 },
        user: { quota: 10_000 - charged, used: charged, requests: 1 },
      });
    });

    it('sends the reserves and settles of one turn as one statement, each with its own outcome', async () => {
      const affordsTwo = await database.createAccount({ user: 100_000, token: 2000 });
      const noUser = { tokenId: (await database.createAccount({ user: 100_000, token: 100_000 })).tokenId, userId: 987_654 };
      const counter = statementCounter();
      const ledger = routineLedger(database.handle.db.withPlugin(counter.plugin));
      const ids = [requestId(), requestId(), requestId(), requestId()];
      const reserved = await Promise.all([
        ledger.reserve({ id: ids[0] as string, ...affordsTwo, amount: 1000 }, now),
        ledger.reserve({ id: ids[1] as string, ...affordsTwo, amount: 1000 }, now),
        ledger.reserve({ id: ids[2] as string, ...affordsTwo, amount: 1000 }, now),
        ledger.reserve({ id: ids[3] as string, ...noUser, amount: 10 }, now),
      ]);
      expect(reserved).toEqual([{ ok: true }, { ok: true }, { ok: false, short: 'token' }, { ok: false, short: 'user' }]);
      expect(counter.count()).toBe(1);
      const settled = await Promise.all([
        ledger.settle(ids[0] as string, { actualAmount: 400, channelId: undefined }, now),
        ledger.settle(ids[1] as string, { actualAmount: 1500, channelId: undefined }, now),
        ledger.settle(ids[2] as string, { actualAmount: 1500, channelId: undefined }, now),
      ]);
      // The second settle's extra 500 is covered by the 600 the first handed back, in the same transaction.
      expect(settled).toEqual([{ applied: true, charged: 400 }, { applied: true, charged: 1500 }, { applied: false, charged: 0 }]);
      expect(counter.count()).toBe(2);
      expect(await balances(affordsTwo)).toEqual({ token: { remain: 100, used: 1900, requests: 2 }, user: { quota: 98_100, used: 1900, requests: 2 } });
    });

    it('runs the calls of a batch that fails one by one, so only the faulty call fails', async () => {
      const account = await database.createAccount({ user: 10_000, token: 10_000 });
      const taken = requestId();
      expect(await routineLedger().reserve({ id: taken, ...account, amount: 1000 }, now)).toEqual({ ok: true });
      const failures: unknown[] = [];
      const ledger = new StoredRoutineQuotaLedger(database.handle.db, dialect as 'postgres' | 'mysql', 'node-a', (error) => failures.push(error));
      const outcomes = await Promise.allSettled([
        ledger.reserve({ id: requestId(), ...account, amount: 2000 }, now),
        ledger.reserve({ id: taken, ...account, amount: 3000 }, now),
        ledger.settle(taken, { actualAmount: 500, channelId: undefined }, now),
      ]);
      expect(failures).toHaveLength(1);
      expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'rejected'))).toEqual([{ ok: true }, 'rejected', { applied: true, charged: 500 }]);
      expect(await balances(account)).toEqual({ token: { remain: 7500, used: 500, requests: 1 }, user: { quota: 7500, used: 500, requests: 1 } });
    });

    it('locks a batch\'s rows in the single calls\' order: reservations, tokens, users, channels', async () => {
      const account = await database.createAccount({ user: 100_000, token: 100_000 });
      const channelId = await database.createChannel();
      const other = await database.openAnotherHandle();
      const ledger = routineLedger(other.db);
      /** Whether another connection could lock the row at once (it lets it go again right away). */
      const free = async (table: 'quota_reservations' | 'tokens' | 'users' | 'channels', id: string | number) => {
        const probe = await database.handle.db.startTransaction().execute();
        try {
          await sql`select id from ${sql.table(table)} where id = ${id} for update nowait`.execute(probe);
          return true;
        } catch {
          return false;
        } finally {
          await probe.rollback().execute();
        }
      };
      // While the batch waits for the row `held`, the rows before it in the order are locked and those after it not.
      for (const held of ['tokens', 'users'] as const) {
        const open = requestId();
        expect(await ledger.reserve({ id: open, ...account, amount: 100 }, now)).toEqual({ ok: true });
        const blocker = await database.handle.db.startTransaction().execute();
        await sql`select id from ${sql.table(held)} where id = ${held === 'tokens' ? account.tokenId : account.userId} for update`.execute(blocker);
        const batch = Promise.all([ledger.settle(open, { actualAmount: 50, channelId }, now), ledger.reserve({ id: requestId(), ...account, amount: 100 }, now)]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const locked = { reservation: !(await free('quota_reservations', open)), token: !(await free('tokens', account.tokenId)), user: !(await free('users', account.userId)), channel: !(await free('channels', channelId)) };
        await blocker.commit().execute();
        expect(await batch).toEqual([{ applied: true, charged: 50 }, { ok: true }]);
        expect(locked).toEqual(held === 'tokens' ? { reservation: true, token: true, user: false, channel: false } : { reservation: true, token: true, user: true, channel: false });
      }
    });

    it('never deadlocks when processes batch calls on the same rows in opposite orders', async () => {
      const accounts = await Promise.all(Array.from({ length: 4 }, () => database.createAccount({ user: 1_000_000, token: 1_000_000 })));
      const channels = [await database.createChannel(), await database.createChannel()];
      const failures: unknown[] = [];
      const handles = [database.handle.db, (await database.openAnotherHandle()).db, (await database.openAnotherHandle()).db];
      const ledgers = handles.map((db) => new StoredRoutineQuotaLedger(db, dialect as 'postgres' | 'mysql', 'node-a', (error) => failures.push(error)));
      let cycles = 0;
      await Promise.all(
        ledgers.flatMap((ledger, process) =>
          Array.from({ length: 12 }, async (_, lane) => {
            for (let round = 0; round < 15; round += 1) {
              const order = (process + lane + round) % 2 === 0 ? accounts : [...accounts].reverse();
              const account = order[(lane + round) % order.length] as { userId: number; tokenId: number };
              const id = requestId();
              expect(await ledger.reserve({ id, ...account, amount: 100 }, now)).toEqual({ ok: true });
              await ledger.settle(id, { actualAmount: 150, channelId: channels[(lane + round) % 2] }, now);
              cycles += 1;
            }
          }),
        ),
      );
      expect(failures).toEqual([]);
      const spent = await Promise.all(accounts.map(async (account) => (await balances(account)).user));
      expect(spent.reduce((sum, user) => sum + (user.used ?? 0), 0)).toBe(cycles * 150);
      expect(spent.every((user) => user.quota === 1_000_000 - (user.used ?? 0))).toBe(true);
    });

    if (dialect === 'mysql') {
      it('calls the single routines one by one on a server without the batch routine', async () => {
        const bare = await openLedgerDatabase('mysql');
        try {
          await sql`drop procedure relay_ledger_batch`.execute(bare.handle.db);
          const account = await bare.createAccount({ user: 10_000, token: 10_000 });
          const failures: unknown[] = [];
          const ledger = new StoredRoutineQuotaLedger(bare.handle.db, 'mysql', 'node-a', (error) => failures.push(error));
          const turn = () => Promise.all([1, 2, 3].map(() => ledger.reserve({ id: requestId(), ...account, amount: 1000 }, now)));
          expect(await turn()).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
          expect(failures).toHaveLength(1);
          expect(await turn()).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
          expect(failures).toHaveLength(1);
          const token = await bare.tokens.get(account.tokenId);
          expect(token?.remainQuota).toBe(4000);
        } finally {
          await bare.close();
        }
      });
    }

    /** The routines restate the portable Kysely ledger's rules; the same operations must end the same way. */
    it('agrees with the portable SqlQuotaLedger on outcomes and balances, case by case', async () => {
      const cases: { user: number | null; token: number | null; reserve: number; actual: number }[] = [
        { user: 10_000, token: 8000, reserve: 1000, actual: 600 },
        { user: 10_000, token: 8000, reserve: 1000, actual: 1000 },
        { user: 10_000, token: 8000, reserve: 1000, actual: 0 },
        { user: 10_000, token: 8000, reserve: 1000, actual: 2500 },
        { user: 10_000, token: 1200, reserve: 1000, actual: 2000 },
        { user: 1100, token: 10_000, reserve: 1000, actual: 5000 },
        { user: 999, token: 10_000, reserve: 1000, actual: 1000 },
        { user: 10_000, token: 999, reserve: 1000, actual: 1000 },
        { user: 1000, token: 1000, reserve: 1000, actual: 1000 },
        { user: 0, token: 0, reserve: 0, actual: 50 },
        { user: null, token: 100, reserve: 100, actual: 7000 },
        { user: 100, token: null, reserve: 100, actual: 7000 },
        { user: null, token: null, reserve: 10, actual: 9_000_000_000 },
        { user: 50_000_000_000, token: 40_000_000_000, reserve: 5_000_000_000, actual: 6_000_000_000 },
      ];
      const reference: QuotaLedger = new SqlQuotaLedger(database.handle.db, dialect, 'node-a');
      for (const entry of cases) {
        const results = [];
        for (const ledger of [reference, routineLedger()]) {
          const account = await database.createAccount({ user: entry.user, token: entry.token });
          const id = requestId();
          const reserved = await ledger.reserve({ id, ...account, amount: entry.reserve }, now);
          const settled = reserved.ok ? await ledger.settle(id, { actualAmount: entry.actual, channelId: undefined }, now) : undefined;
          const again = reserved.ok ? await ledger.settle(id, { actualAmount: entry.actual, channelId: undefined }, now) : undefined;
          results.push({ reserved, settled, again, balances: await balances(account) });
        }
        expect(results[1], JSON.stringify(entry)).toEqual(results[0]);
      }
    });
  });
}
