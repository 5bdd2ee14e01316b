import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDialects } from '../support/test-databases.js';
import { openLedgerDatabase, type LedgerDatabase } from './ledger-test-setup.js';

const now = 1_760_000_000_000;
let nextId = 0;
const requestId = () => `request-${(nextId += 1)}`;

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`QuotaLedger on ${dialect}`, () => {
    let database: LedgerDatabase;
    beforeAll(async () => {
      database = await openLedgerDatabase(dialect);
    });
    afterAll(async () => {
      await database?.close();
    });

    async function balances(account: { userId: number; tokenId: number }) {
      const token = await database.tokens.get(account.tokenId);
      const user = await database.users.get(account.userId);
      if (token === undefined || user === undefined) throw new Error('account vanished');
      return {
        token: { remain: token.remainQuota, used: token.usedQuota, requests: token.requestCount },
        user: { quota: user.quota, used: user.usedQuota, requests: user.requestCount },
      };
    }

    async function reservationRow(id: string) {
      return database.handle.db.selectFrom('quota_reservations').selectAll().where('id', '=', id).executeTakeFirst();
    }

    async function reserveAndSettle(account: { userId: number; tokenId: number }, reserved: number, actual: number, channelId?: number) {
      const ledger = database.ledger();
      const id = requestId();
      expect(await ledger.reserve({ id, ...account, amount: reserved }, now)).toEqual({ ok: true });
      return { id, outcome: await ledger.settle(id, { actualAmount: actual, channelId }, now + 1) };
    }

    it('reserve debits the token and the user and records an open reservation for this owner', async () => {
      const account = await database.createAccount({ user: 10_000, token: 8000 });
      const id = requestId();
      expect(await database.ledger('node-a').reserve({ id, ...account, amount: 1500 }, now)).toEqual({ ok: true });
      expect(await balances(account)).toEqual({ token: { remain: 6500, used: 0, requests: 0 }, user: { quota: 8500, used: 0, requests: 0 } });
      expect(await reservationRow(id)).toMatchObject({ token_id: account.tokenId, user_id: account.userId, owner: 'node-a', state: 'reserved', settled_amount: null });
      expect(Number((await reservationRow(id))?.amount)).toBe(1500);
    });

    it('settling below the reservation returns the rest and counts the charge on token, user and channel', async () => {
      const account = await database.createAccount({ user: 10_000, token: 8000 });
      const channelId = await database.createChannel();
      const { id, outcome } = await reserveAndSettle(account, 1000, 600, channelId);
      expect(outcome).toEqual({ applied: true, charged: 600 });
      expect(await balances(account)).toEqual({ token: { remain: 7400, used: 600, requests: 1 }, user: { quota: 9400, used: 600, requests: 1 } });
      const channel = await database.channels.get(channelId);
      expect({ used: channel?.usedQuota, requests: channel?.requestCount }).toEqual({ used: 600, requests: 1 });
      const row = await reservationRow(id);
      expect({ state: row?.state, settled: Number(row?.settled_amount), at: Number(row?.settled_at) }).toEqual({ state: 'settled', settled: 600, at: now + 1 });
    });

    it('settling exactly the reservation moves it from balance to used', async () => {
      const account = await database.createAccount({ user: 10_000, token: 8000 });
      expect((await reserveAndSettle(account, 1000, 1000)).outcome).toEqual({ applied: true, charged: 1000 });
      expect(await balances(account)).toEqual({ token: { remain: 7000, used: 1000, requests: 1 }, user: { quota: 9000, used: 1000, requests: 1 } });
    });

    it('settling a failure at 0 returns the whole reservation and still counts the request', async () => {
      const account = await database.createAccount({ user: 10_000, token: 8000 });
      expect((await reserveAndSettle(account, 1000, 0)).outcome).toEqual({ applied: true, charged: 0 });
      expect(await balances(account)).toEqual({ token: { remain: 8000, used: 0, requests: 1 }, user: { quota: 10_000, used: 0, requests: 1 } });
    });

    it('settling above the reservation takes the extra when both balances cover it', async () => {
      const account = await database.createAccount({ user: 10_000, token: 8000 });
      expect((await reserveAndSettle(account, 1000, 2500)).outcome).toEqual({ applied: true, charged: 2500 });
      expect(await balances(account)).toEqual({ token: { remain: 5500, used: 2500, requests: 1 }, user: { quota: 7500, used: 2500, requests: 1 } });
    });

    it('charges only the reservation, and still counts the request, when the usage runs over a token the balances leave nothing above', async () => {
      const account = await database.createAccount({ user: 10_000, token: 1000 });
      const channelId = await database.createChannel();
      // Reserving 1,000 leaves the token 0: the extra cannot be taken, the charge is the reservation.
      const { id, outcome } = await reserveAndSettle(account, 1000, 4000, channelId);
      expect(outcome).toEqual({ applied: true, charged: 1000 });
      expect(await balances(account)).toEqual({ token: { remain: 0, used: 1000, requests: 1 }, user: { quota: 9000, used: 1000, requests: 1 } });
      expect(Number((await reservationRow(id))?.settled_amount)).toBe(1000);
    });

    it('charges only the reservation when the token row went away before a settlement over it', async () => {
      const account = await database.createAccount({ user: 10_000, token: 10_000 });
      const ledger = database.ledger();
      const id = requestId();
      expect(await ledger.reserve({ id, ...account, amount: 1000 }, now)).toEqual({ ok: true });
      await database.handle.db.deleteFrom('tokens').where('id', '=', account.tokenId).execute();
      expect(await ledger.settle(id, { actualAmount: 4000, channelId: undefined }, now)).toEqual({ applied: true, charged: 1000 });
      const user = await database.users.get(account.userId);
      expect({ quota: user?.quota, used: user?.usedQuota, requests: user?.requestCount }).toEqual({ quota: 9000, used: 1000, requests: 1 });
    });

    it('caps the extra at what the token has left and takes the same from the user', async () => {
      const account = await database.createAccount({ user: 10_000, token: 1200 });
      // Reserve 1,000 leaves the token 200; actual 2,000 wants 1,000 more, the token covers 200.
      const { id, outcome } = await reserveAndSettle(account, 1000, 2000);
      expect(outcome).toEqual({ applied: true, charged: 1200 });
      expect(await balances(account)).toEqual({ token: { remain: 0, used: 1200, requests: 1 }, user: { quota: 8800, used: 1200, requests: 1 } });
      expect(Number((await reservationRow(id))?.settled_amount)).toBe(1200);
    });

    it('caps the extra at what the user wallet has left and takes the same from the token', async () => {
      const account = await database.createAccount({ user: 1100, token: 10_000 });
      expect((await reserveAndSettle(account, 1000, 5000)).outcome).toEqual({ applied: true, charged: 1100 });
      expect(await balances(account)).toEqual({ token: { remain: 8900, used: 1100, requests: 1 }, user: { quota: 0, used: 1100, requests: 1 } });
    });

    it('settle is idempotent: a second settle of the same reservation changes nothing', async () => {
      const account = await database.createAccount({ user: 10_000, token: 8000 });
      const channelId = await database.createChannel();
      const { id } = await reserveAndSettle(account, 1000, 700, channelId);
      const after = await balances(account);
      expect(await database.ledger().settle(id, { actualAmount: 700, channelId }, now + 2)).toEqual({ applied: false, charged: 0 });
      expect(await database.ledger('node-b').settle(id, { actualAmount: 5000, channelId }, now + 3)).toEqual({ applied: false, charged: 0 });
      expect(await balances(account)).toEqual(after);
      expect((await database.channels.get(channelId))?.usedQuota).toBe(700);
      expect(Number((await reservationRow(id))?.settled_at)).toBe(now + 1);
    });

    it('settling a reservation that does not exist applies nothing and leaves no row (releasing a reserve that never committed)', async () => {
      expect(await database.ledger().settle('never-reserved', { actualAmount: 100, channelId: undefined }, now)).toEqual({ applied: false, charged: 0 });
      expect(await database.ledger().settle('never-reserved', { actualAmount: 0, channelId: undefined }, now)).toEqual({ applied: false, charged: 0 });
      expect(await reservationRow('never-reserved')).toBeUndefined();
    });

    it('refuses with short "token" when the token cannot cover the reservation, leaving the user untouched', async () => {
      const account = await database.createAccount({ user: 10_000, token: 999 });
      const id = requestId();
      expect(await database.ledger().reserve({ id, ...account, amount: 1000 }, now)).toEqual({ ok: false, short: 'token' });
      expect(await balances(account)).toEqual({ token: { remain: 999, used: 0, requests: 0 }, user: { quota: 10_000, used: 0, requests: 0 } });
      expect(await reservationRow(id)).toBeUndefined();
    });

    it('refuses with short "user" when the wallet cannot cover the reservation, rolling back the token debit', async () => {
      const account = await database.createAccount({ user: 999, token: 10_000 });
      const id = requestId();
      expect(await database.ledger().reserve({ id, ...account, amount: 1000 }, now)).toEqual({ ok: false, short: 'user' });
      expect(await balances(account)).toEqual({ token: { remain: 10_000, used: 0, requests: 0 }, user: { quota: 999, used: 0, requests: 0 } });
      expect(await reservationRow(id)).toBeUndefined();
    });

    it('lets a reservation take a balance to exactly zero', async () => {
      const account = await database.createAccount({ user: 1000, token: 1000 });
      expect((await reserveAndSettle(account, 1000, 1000)).outcome).toEqual({ applied: true, charged: 1000 });
      expect(await database.ledger().reserve({ id: requestId(), ...account, amount: 1 }, now)).toEqual({ ok: false, short: 'token' });
    });

    it('never leaves an unlimited token short nor moves its balance, but counts what it used', async () => {
      const account = await database.createAccount({ user: 10_000, token: null });
      const ledger = database.ledger();
      const id = requestId();
      expect(await ledger.reserve({ id, ...account, amount: 4000 }, now)).toEqual({ ok: true });
      expect(await balances(account)).toEqual({ token: { remain: 0, used: 0, requests: 0 }, user: { quota: 6000, used: 0, requests: 0 } });
      expect(await ledger.settle(id, { actualAmount: 4500, channelId: undefined }, now)).toEqual({ applied: true, charged: 4500 });
      expect(await balances(account)).toEqual({ token: { remain: 0, used: 4500, requests: 1 }, user: { quota: 5500, used: 4500, requests: 1 } });
    });

    it('never leaves an unlimited user short nor moves the wallet, but counts what it used', async () => {
      const account = await database.createAccount({ user: null, token: 10_000 });
      const { outcome } = await reserveAndSettle(account, 1000, 3000);
      expect(outcome).toEqual({ applied: true, charged: 3000 });
      expect(await balances(account)).toEqual({ token: { remain: 7000, used: 3000, requests: 1 }, user: { quota: 0, used: 3000, requests: 1 } });
    });

    it('charges an unlimited token of an unlimited user whatever the request cost', async () => {
      const account = await database.createAccount({ user: null, token: null });
      expect((await reserveAndSettle(account, 10, 9_000_000_000)).outcome).toEqual({ applied: true, charged: 9_000_000_000 });
      expect(await balances(account)).toEqual({ token: { remain: 0, used: 9_000_000_000, requests: 1 }, user: { quota: 0, used: 9_000_000_000, requests: 1 } });
    });

    it('handles balances beyond 32 bits', async () => {
      const account = await database.createAccount({ user: 50_000_000_000, token: 40_000_000_000 });
      expect((await reserveAndSettle(account, 5_000_000_000, 3_000_000_000)).outcome).toEqual({ applied: true, charged: 3_000_000_000 });
      expect(await balances(account)).toEqual({
        token: { remain: 37_000_000_000, used: 3_000_000_000, requests: 1 },
        user: { quota: 47_000_000_000, used: 3_000_000_000, requests: 1 },
      });
    });

    it('always accepts a reservation of 0, even on empty balances, and settles it', async () => {
      const account = await database.createAccount({ user: 0, token: 0 });
      const ledger = database.ledger();
      const id = requestId();
      expect(await ledger.reserve({ id, ...account, amount: 0 }, now)).toEqual({ ok: true });
      expect((await reservationRow(id))?.state).toBe('reserved');
      // A cost the empty balances cannot cover is not taken: no balance goes below zero.
      expect(await ledger.settle(id, { actualAmount: 50, channelId: undefined }, now)).toEqual({ applied: true, charged: 0 });
      expect(await balances(account)).toEqual({ token: { remain: 0, used: 0, requests: 1 }, user: { quota: 0, used: 0, requests: 1 } });
    });

    it('throws on amounts that are not non-negative integers', async () => {
      const account = await database.createAccount({ user: 10_000, token: 10_000 });
      const ledger = database.ledger();
      await expect(ledger.reserve({ id: requestId(), ...account, amount: -1 }, now)).rejects.toThrow(RangeError);
      await expect(ledger.reserve({ id: requestId(), ...account, amount: 1.5 }, now)).rejects.toThrow(RangeError);
      const id = requestId();
      await ledger.reserve({ id, ...account, amount: 100 }, now);
      await expect(ledger.settle(id, { actualAmount: Number.NaN, channelId: undefined }, now)).rejects.toThrow(RangeError);
      expect((await reservationRow(id))?.state).toBe('reserved');
    });
  });
}
