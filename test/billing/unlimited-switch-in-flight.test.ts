import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlQuotaLedger } from '../../src/billing/sql-quota-ledger.js';
import { allDialects } from '../support/test-databases.js';
import { openLedgerDatabase, type LedgerDatabase } from '../billing/ledger-test-setup.js';

/**
 * From the concurrency audit: an admin flips `unlimited_quota` (PUT /api/admin/tokens/:id or /users/:id,
 * which call TokensRepository.update / UsersRepository.update) while a request's reservation is open. The
 * reserve decides "debit or not" on the flag at reserve time and the settle "hand back or not" on the flag
 * at settle time, so the switch itself moves the open reservations' amounts
 * (balance-across-unlimited-switch.ts): no quota is minted or burnt, on every database.
 */
const now = 1_750_000_000_000;
const reserved = 10_000;
const actual = 1_000;

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`unlimited_quota flipped while a reservation is open, on ${dialect}`, () => {
    let books: LedgerDatabase;
    beforeAll(async () => {
      books = await openLedgerDatabase(dialect);
    }, 30_000);
    afterAll(async () => books?.close(), 30_000);

    async function read(tokenId: number, userId: number) {
      const token = await books.handle.db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('id', '=', tokenId).executeTakeFirstOrThrow();
      const user = await books.handle.db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', userId).executeTakeFirstOrThrow();
      return { token: { remain: Number(token.remain_quota), used: Number(token.used_quota) }, user: { remain: Number(user.quota), used: Number(user.used_quota) } };
    }

    it('an unlimited token made limited mid-request is not credited the unused part of a reservation it never paid', async () => {
      const ledger = books.ledger('flip-a');
      const { tokenId, userId } = await books.createAccount({ user: 1_000_000, token: null });
      expect(await ledger.reserve({ id: `${dialect}-u2l`, tokenId, userId, amount: reserved }, now)).toEqual({ ok: true });
      // The admin turns the key into a limited one (its stored remain_quota is 0) while the request runs.
      await books.tokens.update(tokenId, { unlimitedQuota: false }, now);
      expect(await ledger.settle(`${dialect}-u2l`, { actualAmount: actual, channelId: undefined }, now)).toMatchObject({ applied: true, charged: actual });
      const after = await read(tokenId, userId);
      // Nothing was ever taken from this token's balance: it ends owing what the request cost, not credited 9,000.
      expect(after.token).toEqual({ remain: -actual, used: actual });
    });

    it('a limited token made unlimited mid-request gets the unused part of its reservation back', async () => {
      const ledger = books.ledger('flip-b');
      const grant = 50_000;
      const { tokenId, userId } = await books.createAccount({ user: 1_000_000, token: grant });
      expect(await ledger.reserve({ id: `${dialect}-l2u`, tokenId, userId, amount: reserved }, now)).toEqual({ ok: true });
      await books.tokens.update(tokenId, { unlimitedQuota: true }, now);
      await ledger.settle(`${dialect}-l2u`, { actualAmount: actual, channelId: undefined }, now);
      await books.tokens.update(tokenId, { unlimitedQuota: false }, now);
      const after = await read(tokenId, userId);
      // The switch handed the reservation back, and a charge settled while unlimited does not move the
      // balance: the 10,000 reserved do not vanish, and the key never paid more than it had.
      expect(after.token).toEqual({ remain: grant, used: actual });
    });

    it('an unlimited user made limited mid-request is not credited the unused part of a reservation it never paid', async () => {
      const ledger = books.ledger('flip-c');
      const { tokenId, userId } = await books.createAccount({ user: null, token: 1_000_000 });
      expect(await ledger.reserve({ id: `${dialect}-user-u2l`, tokenId, userId, amount: reserved }, now)).toEqual({ ok: true });
      await books.users.update(userId, { unlimitedQuota: false }, now);
      await ledger.settle(`${dialect}-user-u2l`, { actualAmount: actual, channelId: undefined }, now);
      const after = await read(tokenId, userId);
      expect(after.user).toEqual({ remain: -actual, used: actual });
    });

    // From the inflight audit: a task's refund comes long after its settle, and credits exactly the wallets
    // the settle recorded as charged (migration 016) — those limited at settlement, whatever they were at reserve.
    for (const [kind, ledgerOf] of [
      ['the wired ledger', (owner: string) => books.ledger(owner)],
      ['SqlQuotaLedger', (owner: string) => new SqlQuotaLedger(books.handle.db, dialect, owner)],
    ] as const) {
      it(`${kind} records on the settled reservation which wallets the charge left, by their flags at settlement`, async () => {
        const ledger = ledgerOf(`flip-d-${kind}`);
        const { tokenId, userId } = await books.createAccount({ user: null, token: 50_000 });
        const id = `${dialect}-debited-${kind.length}`;
        expect(await ledger.reserve({ id, tokenId, userId, amount: reserved }, now)).toEqual({ ok: true });
        await books.tokens.update(tokenId, { unlimitedQuota: true }, now);
        await books.users.update(userId, { unlimitedQuota: false, quota: 100_000 }, now);
        await ledger.settle(id, { actualAmount: actual, channelId: undefined }, now);
        const row = await books.handle.db.selectFrom('quota_reservations').select(['token_debited', 'user_debited']).where('id', '=', id).executeTakeFirstOrThrow();
        expect({ token: Number(row.token_debited), user: Number(row.user_debited) }).toEqual({ token: 0, user: 1 });
      });
    }
  });
}
