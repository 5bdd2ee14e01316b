import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQuotaLedger } from '../../src/billing/create-quota-ledger.js';
import type { QuotaLedger } from '../../src/billing/quota-ledger.js';
import { allDialects } from '../support/test-databases.js';
import { openLedgerDatabase, type LedgerDatabase } from './ledger-test-setup.js';

const now = 1_760_000_000_000;

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`QuotaLedger under concurrency on ${dialect}`, () => {
    let database: LedgerDatabase;
    /**
     * PostgreSQL and MySQL: three independent handles, each with its own pool, as three gateway processes
     * would have. SQLite: the one handle a process owns (better-sqlite3 is synchronous, so a second handle
     * in the same process would block the event loop on the first one's write lock instead of waiting).
     */
    let ledgers: QuotaLedger[];
    let run = 0;

    beforeAll(async () => {
      database = await openLedgerDatabase(dialect);
      ledgers = [database.ledger('node-a')];
      if (dialect !== 'sqlite') {
        for (const owner of ['node-b', 'node-c']) {
          const other = await database.openAnotherHandle();
          ledgers.push(createQuotaLedger(other, owner));
        }
      }
    });
    afterAll(async () => {
      await database?.close();
    });

    /** Starts every cycle at once; each reserves, and when that succeeds settles. */
    async function runCycles(cycles: { account: { userId: number; tokenId: number }; reserve: number; actual: number }[]) {
      run += 1;
      return Promise.all(
        cycles.map(async (cycle, index) => {
          const ledger = ledgers[index % ledgers.length] as QuotaLedger;
          const id = `run-${run}-cycle-${index}`;
          const reserved = await ledger.reserve({ id, ...cycle.account, amount: cycle.reserve }, now);
          if (!reserved.ok) return { id, reserved, charged: 0 };
          const settled = await ledger.settle(id, { actualAmount: cycle.actual, channelId: undefined }, now);
          expect(settled.applied).toBe(true);
          return { id, reserved, charged: settled.charged };
        }),
      );
    }

    async function reservationsOf(ids: string[]) {
      return database.handle.db.selectFrom('quota_reservations').select(['state', 'settled_amount']).where('id', 'in', ids).execute();
    }

    it('lets exactly 5 of 40 concurrent 1,000-quota requests through a token that affords 5', async () => {
      const account = await database.createAccount({ user: 1_000_000, token: 5000 });
      const results = await runCycles(Array.from({ length: 40 }, () => ({ account, reserve: 1000, actual: 1000 })));

      expect(results.filter((result) => result.reserved.ok)).toHaveLength(5);
      expect(results.filter((result) => !result.reserved.ok).every((result) => !result.reserved.ok && result.reserved.short === 'token')).toBe(true);
      const token = await database.tokens.get(account.tokenId);
      const user = await database.users.get(account.userId);
      expect(token?.usedQuota).toBe(5000);
      expect(token?.remainQuota).toBe(0);
      expect((token?.usedQuota ?? 0) + (token?.remainQuota ?? 0)).toBe(5000);
      expect(token?.requestCount).toBe(5);
      expect(user?.usedQuota).toBe(5000);
      expect((user?.usedQuota ?? 0) + (user?.quota ?? 0)).toBe(1_000_000);
      expect(user?.requestCount).toBe(5);
      // Refused reservations were rolled back entirely; the five that passed are settled.
      const rows = await reservationsOf(results.map((result) => result.id));
      expect(rows).toHaveLength(5);
      expect(rows.every((row) => row.state === 'settled' && Number(row.settled_amount) === 1000)).toBe(true);
    });

    it('lets exactly 3 through when the user wallet, shared by four tokens, affords 3', async () => {
      const first = await database.createAccount({ user: 3000, token: 10_000 });
      const otherTokens: number[] = [];
      for (let index = 0; index < 3; index += 1) {
        otherTokens.push(
          await database.tokens.create(
            { userId: first.userId, name: `shared-${index}`, group: null, remainQuota: 10_000, unlimitedQuota: false, modelLimits: null, expiresAt: 0, enabled: true, rateLimit: {} },
            { hash: `shared-wallet-${dialect}-${index}`, prefix: 'sk-test' },
            now,
          ),
        );
      }
      const tokenIds = [first.tokenId, ...otherTokens];
      const results = await runCycles(
        Array.from({ length: 40 }, (_, index) => ({ account: { userId: first.userId, tokenId: tokenIds[index % 4] as number }, reserve: 1000, actual: 1000 })),
      );

      expect(results.filter((result) => result.reserved.ok)).toHaveLength(3);
      const user = await database.users.get(first.userId);
      expect({ quota: user?.quota, used: user?.usedQuota }).toEqual({ quota: 0, used: 3000 });
      let tokensUsed = 0;
      for (const tokenId of tokenIds) {
        const token = await database.tokens.get(tokenId);
        expect((token?.usedQuota ?? 0) + (token?.remainQuota ?? 0)).toBe(10_000);
        tokensUsed += token?.usedQuota ?? 0;
      }
      expect(tokensUsed).toBe(3000);
    });

    it('conserves every balance when concurrent settlements fall below, on and above their reservations', async () => {
      const account = await database.createAccount({ user: 15_000, token: 20_000 });
      const actuals = [0, 400, 1000, 1700, 2500, 999, 3000, 1];
      const results = await runCycles(Array.from({ length: 40 }, (_, index) => ({ account, reserve: 1000, actual: actuals[index % actuals.length] as number })));

      const token = await database.tokens.get(account.tokenId);
      const user = await database.users.get(account.userId);
      const charged = results.reduce((total, result) => total + result.charged, 0);
      const passed = results.filter((result) => result.reserved.ok).length;
      expect(passed).toBeGreaterThan(0);
      expect(token?.remainQuota).toBeGreaterThanOrEqual(0);
      expect(user?.quota).toBeGreaterThanOrEqual(0);
      expect((token?.usedQuota ?? 0) + (token?.remainQuota ?? 0)).toBe(20_000);
      expect((user?.usedQuota ?? 0) + (user?.quota ?? 0)).toBe(15_000);
      expect(token?.usedQuota).toBe(charged);
      expect(user?.usedQuota).toBe(charged);
      expect(token?.requestCount).toBe(passed);
      const rows = await reservationsOf(results.map((result) => result.id));
      expect(rows.reduce((total, row) => total + Number(row.settled_amount), 0)).toBe(charged);
    });
  });
}
