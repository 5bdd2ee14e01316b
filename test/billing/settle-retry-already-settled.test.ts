/**
 * A settle made again by the settle retry queue (src/billing/settle-retry-queue.ts) that finds its
 * reservation settled already, wired as main.ts wires it (`settlementOf`: read-settlement.ts): what it
 * tells `onSettled` — the amount of the request's log row and of a task's recorded charge — against what
 * the wallets moved. When the 24-hour sweep settled it first (at the reserved amount, with its own
 * `recovery` row) the request writes no second row; when an earlier try committed an overage capped by the
 * balances and its answer was lost, the row carries the capped charge, not the actual amount.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuotaLedger, SettleInput } from '../../src/billing/quota-ledger.js';
import { readSettlement } from '../../src/billing/read-settlement.js';
import { staleReservationMs } from '../../src/billing/sql-quota-ledger.js';
import { SettleRetryQueue } from '../../src/billing/settle-retry-queue.js';
import { buildRecoveryLogRow } from '../../src/relay/build-recovery-log-row.js';
import { LogsRepository } from '../../src/storage/logs-repository.js';
import { allDialects } from '../support/test-databases.js';
import { openLedgerDatabase, type LedgerDatabase } from './ledger-test-setup.js';

const now = 1_760_000_000_000;

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`a queued settle that finds its reservation settled already, on ${dialect}`, () => {
    let database: LedgerDatabase;
    beforeAll(async () => {
      database = await openLedgerDatabase(dialect);
    });
    afterAll(async () => {
      await database?.close();
    });

    const spent = async (tokenId: number) => (await database.tokens.get(tokenId))?.usedQuota;

    /** Queues the settle as a failed one and resolves with what `onSettled` heard. */
    function retried(ledger: Pick<QuotaLedger, 'settle'>, id: string, input: SettleInput): Promise<{ charged: number; loggedByRecovery: boolean }> {
      const queue = new SettleRetryQueue(ledger, { firstDelayMs: 1, maxDelayMs: 1, now: () => now, settlementOf: (reservationId) => readSettlement(database.handle.db, reservationId) });
      return new Promise((resolve) => queue.add({ reservationId: id, input, onSettled: (charged, loggedByRecovery) => resolve({ charged, loggedByRecovery }) }, new Error('connection lost')));
    }

    it('settled by the 24-hour sweep first (which logged it): the request writes no second row, and its charge is the sweep’s', async () => {
      const account = await database.createAccount({ user: 100_000, token: 50_000 });
      const ledger = database.ledger('node-probe-a');
      const id = `sweep-${dialect}`;
      expect(await ledger.reserve({ id, ...account, amount: 1000 }, now - staleReservationMs - 1)).toEqual({ ok: true });
      // Another instance's sweep, logging as main.ts does.
      const logs = new LogsRepository(database.handle.db);
      await database.ledger('node-other').recoverOpenReservations(now, (reservation) => logs.insertMany([buildRecoveryLogRow(reservation, undefined)]), 'stale');
      expect(await retried(ledger, id, { actualAmount: 86, channelId: undefined })).toEqual({ charged: 1000, loggedByRecovery: true });
      expect(await spent(account.tokenId)).toBe(1000);
    });

    it('an earlier try committed an overage the balances capped, its answer lost: the row carries what was charged', async () => {
      const account = await database.createAccount({ user: 100_000, token: 1_100 });
      const ledger = database.ledger('node-probe-b');
      const id = `capped-${dialect}`;
      expect(await ledger.reserve({ id, ...account, amount: 1000 }, now)).toEqual({ ok: true });
      // The server committed the settle; its answer never arrived, so it was queued.
      expect(await ledger.settle(id, { actualAmount: 5000, channelId: undefined }, now)).toEqual({ applied: true, charged: 1100 });
      expect(await retried(ledger, id, { actualAmount: 5000, channelId: undefined })).toEqual({ charged: 1100, loggedByRecovery: false });
      expect(await spent(account.tokenId)).toBe(1100);
    });
  });
}
