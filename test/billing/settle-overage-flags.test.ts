import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDialects } from '../support/test-databases.js';
import { openLedgerDatabase, type LedgerDatabase } from './ledger-test-setup.js';

/**
 * A settle above its reservation (the overage path, which reads both wallets under row locks to cap the
 * overage) records which wallets the charge left by their flags at settlement, as a settle within its
 * reservation does — on every database. On MySQL (migration 018) it takes those flags from its locking
 * reads instead of reading both rows again after their UPDATEs: the procedure reads no more index entries
 * than a settle within its reservation.
 */
const now = 1_750_000_000_000;
const reserved = 1_000;

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`a settle above its reservation, on ${dialect}`, () => {
    let books: LedgerDatabase;
    beforeAll(async () => {
      books = await openLedgerDatabase(dialect);
    }, 30_000);
    afterAll(async () => books?.close(), 30_000);

    for (const [name, quotas, expected] of [
      ['an unlimited token of a limited user', { token: null, user: 100_000 }, { token: 0, user: 1 }],
      ['a limited token of an unlimited user', { token: 100_000, user: null }, { token: 1, user: 0 }],
      ['a limited token of a limited user', { token: 100_000, user: 100_000 }, { token: 1, user: 1 }],
    ] as const) {
      it(`records which wallets the overage charge left: ${name}`, async () => {
        const ledger = books.ledger();
        const { tokenId, userId } = await books.createAccount(quotas);
        const id = `${dialect}-overage-${tokenId}`;
        expect(await ledger.reserve({ id, tokenId, userId, amount: reserved }, now)).toEqual({ ok: true });
        expect(await ledger.settle(id, { actualAmount: reserved * 3, channelId: undefined }, now)).toMatchObject({ charged: reserved * 3 });
        const row = await books.handle.db.selectFrom('quota_reservations').select(['token_debited', 'user_debited', 'settled_amount']).where('id', '=', id).executeTakeFirstOrThrow();
        expect({ token: Number(row.token_debited), user: Number(row.user_debited), settled: Number(row.settled_amount) }).toEqual({ ...expected, settled: reserved * 3 });
      });
    }

    if (dialect === 'mysql') it('reads no wallet row twice: no more index reads than a settle within its reservation', async () => {
      const { tokenId, userId } = await books.createAccount({ token: 100_000, user: 100_000 });
      const url = new URL(books.url);
      const connection = await createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database: url.pathname.slice(1) });
      try {
        const indexReads = async (id: string, actual: number) => {
          await connection.query('insert into quota_reservations (id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at) values (?, ?, ?, ?, ?, ?, null, ?, null)', [id, tokenId, userId, reserved, 'node-a', 'reserved', now]);
          const before = await readKeyCount(connection);
          await connection.query('call relay_settle_in_tx(?, ?, null, ?, @charged)', [id, actual, now]);
          const after = await readKeyCount(connection);
          const [rows] = await connection.query('select @charged as charged');
          expect(Number((rows as { charged: number }[])[0]!.charged)).toBe(actual);
          // The status query itself counts the same in both.
          return after - before;
        };
        const within = await indexReads('mysql-reads-within', reserved / 2);
        const over = await indexReads('mysql-reads-over', reserved * 2);
        // Within: the reservation, then each wallet read again after its UPDATE. Over: the reservation and
        // each wallet read under its lock (before migration 018 each was read again after its UPDATE too).
        expect(over).toBeLessThanOrEqual(within);
      } finally {
        await connection.end();
      }
    });
  });
}

async function readKeyCount(connection: import('mysql2/promise').Connection): Promise<number> {
  const [rows] = await connection.query("show session status like 'Handler_read_key'");
  return Number((rows as { Value: string }[])[0]!.Value);
}
