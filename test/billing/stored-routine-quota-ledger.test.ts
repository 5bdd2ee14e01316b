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
