/**
 * The settle retry queue (src/billing/settle-retry-queue.ts) with two gateways on one database (PostgreSQL
 * and MySQL): both serve streams on one token, the database goes away at their settlements (each reaches it
 * through a TCP proxy of this test, test/support/database-proxy.ts, so the shared servers are never
 * touched), and comes back. Every request is charged exactly once: reservations settled, one log row each,
 * the sum of the rows = the token's and the user's drop. Then with crash recovery in the way: while B's
 * settles wait, a replacement of B (its NODE_NAME, straight on the database) starts and settles B's open
 * reservations at their reserved amount; B's retries, once its database is back, must not charge or log
 * them again. The gateways run in this process (each with its own pools, ledger and retry queue): a
 * spawned `relay serve` could go through the proxy too, but could not be waited for to settle.
 * SQLite has no connection to lose (test/hardening/database-outage.test.ts says why).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readBalances, readReservations, waitFor } from '../billing-e2e/read-billing-state.js';
import { spendReservation } from '../billing-e2e/spend-request.js';
import { spenderTokenName } from '../billing-e2e/start-billing-fixture.js';
import { deliveredCharge, grant, openSpendStream, readRest, startDatabaseOutageFixture, wallet, type DatabaseOutageFixture } from '../hardening/database-outage-fixture.js';
import type { DatabaseProxy } from '../support/database-proxy.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { serverDialects } from '../support/test-databases.js';

const streamsEach = 2;

for (const { dialect, available } of serverDialects) {
  describe.skipIf(!available)(`two gateways with settles queued through a database outage, on ${dialect}`, () => {
    let fixture: DatabaseOutageFixture | undefined;

    afterEach(async () => {
      const closing = fixture;
      fixture = undefined;
      await closing?.close();
    }, 60_000);

    /** Gateways A and B, each through its own proxy to one new database. */
    async function start(): Promise<{ a: TestGateway; b: TestGateway; proxyA: DatabaseProxy; proxyB: DatabaseProxy }> {
      fixture = await startDatabaseOutageFixture(dialect);
      const [proxyA, proxyB] = await Promise.all([fixture.startProxy(), fixture.startProxy()]);
      const a = await fixture.startGateway({ nodeName: 'retry-a', databaseUrl: proxyA.urlFor(fixture.database.url) });
      const b = await fixture.startGateway({ nodeName: 'retry-b', databaseUrl: proxyB.urlFor(fixture.database.url) });
      return { a, b, proxyA, proxyB };
    }

    /**
     * `streamsEach` streams on each gateway, all on the one token; once each has its first chunk, both
     * databases go away, then every client reads its whole answer. Resolves when each gateway has tried
     * (and failed) its settles, which now wait in its retry queue.
     */
    async function streamThroughOutage(pairs: { gateway: TestGateway; proxy: DatabaseProxy }[]): Promise<void> {
      for (let index = 0; index < pairs.length * streamsEach; index += 1) fixture!.upstream.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 1000 });
      const readers = await Promise.all(pairs.flatMap(({ gateway }) => Array.from({ length: streamsEach }, () => openSpendStream(gateway))));
      for (const { proxy } of pairs) proxy.blackout();
      const texts = await Promise.all(readers.map(readRest));
      for (const text of texts) expect(text).toContain('[DONE]');
      for (const { gateway } of pairs) await gateway.settled();
      for (const { gateway } of pairs) expect(gateway.gateway.services.relay.settleRetries.size).toBe(streamsEach);
    }

    /** Waits (or gives up quietly, for the assertions to show) until no reservation is open and every one has its row. */
    async function waitUntilBooked(requests: number): Promise<void> {
      await waitFor('every reservation settled and logged', async () => {
        const reservations = await readReservations(fixture!.inspector.db);
        const rows = await fixture!.inspector.db.selectFrom('logs').select('id').execute();
        return reservations.length === requests && reservations.every((row) => row.state === 'settled') && rows.length === requests ? true : undefined;
      }, 40_000).catch(() => undefined);
    }

    /** Every request charged once: its reservation settled, one row each, rows = the token's and the user's drop. */
    async function books() {
      const reservations = await readReservations(fixture!.inspector.db);
      const logs = await fixture!.inspector.db.selectFrom('logs').select(['request_id', 'quota', 'usage_source']).execute();
      const balances = await readBalances(fixture!.inspector.db, spenderTokenName);
      const logged = logs.reduce((sum, row) => sum + Number(row.quota), 0);
      const settled = reservations.reduce((sum, row) => sum + (row.settledAmount ?? 0), 0);
      return {
        open: reservations.filter((row) => row.state !== 'settled').length,
        rowsPerRequest: [...new Set(reservations.map((row) => row.id))].map((id) => logs.filter((row) => row.request_id === id).length),
        settled,
        logged,
        tokenDrop: grant - balances.token.remain,
        tokenUsed: balances.token.used,
        userDrop: wallet - balances.user.quota,
        userUsed: balances.user.used,
      };
    }

    it('both gateways\' queued settles go through once the database is back: each request charged what it delivered, once', async () => {
      const { a, b, proxyA, proxyB } = await start();
      await streamThroughOutage([{ gateway: a, proxy: proxyA }, { gateway: b, proxy: proxyB }]);
      proxyA.restore();
      proxyB.restore();
      const requests = 2 * streamsEach;
      await waitUntilBooked(requests);
      const total = requests * deliveredCharge;
      expect(await books()).toEqual({ open: 0, rowsPerRequest: Array(requests).fill(1), settled: total, logged: total, tokenDrop: total, tokenUsed: total, userDrop: total, userUsed: total });
      expect((await readReservations(fixture!.inspector.db)).map((row) => row.settledAmount)).toEqual(Array(requests).fill(deliveredCharge));
      for (const gateway of [a, b]) expect(gateway.gateway.services.relay.settleRetries.size).toBe(0);
    }, 90_000);

    it('a replacement of B recovers B\'s open reservations while B\'s settles wait: B\'s retries then charge and log nothing again', async () => {
      const { a, b, proxyA, proxyB } = await start();
      await streamThroughOutage([{ gateway: a, proxy: proxyA }, { gateway: b, proxy: proxyB }]);
      // B's replacement under its NODE_NAME, straight on the database: its start-up recovery charges B's
      // open reservations at their reserved amount and writes their rows (it does not know B still lives).
      await fixture!.startGateway({ nodeName: 'retry-b', databaseUrl: fixture!.database.url });
      const recovered = (await readReservations(fixture!.inspector.db)).filter((row) => row.owner === 'retry-b');
      expect(recovered.map((row) => [row.state, row.settledAmount])).toEqual(Array(streamsEach).fill(['settled', spendReservation]));
      proxyA.restore();
      proxyB.restore();
      const requests = 2 * streamsEach;
      await waitUntilBooked(requests);
      await waitFor('B\'s retry queue empty', async () => (b.gateway.services.relay.settleRetries.size === 0 ? true : undefined), 40_000).catch(() => undefined);
      expect(b.gateway.services.relay.settleRetries.size).toBe(0);
      const total = streamsEach * deliveredCharge + streamsEach * spendReservation;
      expect(await books()).toEqual({ open: 0, rowsPerRequest: Array(requests).fill(1), settled: total, logged: total, tokenDrop: total, tokenUsed: total, userDrop: total, userUsed: total });
      const rows = await fixture!.inspector.db.selectFrom('logs').select(['usage_source']).execute();
      expect(rows.filter((row) => row.usage_source === 'reserved')).toHaveLength(streamsEach);
    }, 90_000);
  });
}
