/**
 * What a request loses when the database is briefly unreachable at its settlement (nothing: the settle is
 * retried in the background, its log row written once it went through, and a shutdown tries once more),
 * or when the connection breaks after the server committed its reservation (nothing: the reservation is
 * handed back). The shared servers are never touched: the gateway reaches them through a TCP proxy of
 * this test (test/support/database-proxy.ts). SQLite has no connection to lose (its settle fails only on a
 * lock held past busy_timeout, which stalls the event loop 10 s): the retry queue's unit test covers it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { readBalances, readReservations, waitFor } from '../billing-e2e/read-billing-state.js';
import { spendRequest, spendReservation } from '../billing-e2e/spend-request.js';
import { spenderKey, spenderTokenName } from '../billing-e2e/start-billing-fixture.js';
import type { DatabaseProxy } from '../support/database-proxy.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { serverDialects } from '../support/test-databases.js';
import { deliveredCharge, grant, openSpendStream, readRest, startDatabaseOutageFixture, wallet, type DatabaseOutageFixture } from './database-outage-fixture.js';

for (const { dialect, available } of serverDialects) {
  describe.skipIf(!available)(`the database unreachable for a moment, on ${dialect}`, () => {
    let fixture: DatabaseOutageFixture | undefined;
    let proxy: DatabaseProxy | undefined;
    let gateway: TestGateway | undefined;

    afterEach(async () => {
      const closing = fixture;
      fixture = undefined;
      await closing?.close();
    }, 30_000);

    /** The fixture, one gateway through one proxy. */
    async function start(env: Record<string, string> = {}): Promise<DatabaseOutageFixture> {
      fixture = await startDatabaseOutageFixture(dialect);
      proxy = await fixture.startProxy();
      gateway = await fixture.startGateway({ nodeName: 'outage-node', databaseUrl: proxy.urlFor(fixture.database.url), env });
      return fixture;
    }

    it('settles a stream at what it delivered once the database is back, when the database was down at its settlement', async () => {
      const { upstream, inspector } = await start();
      upstream.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 1500 });
      const reader = await openSpendStream(gateway!);
      // The database goes away while the stream runs; the stream itself is not disturbed.
      proxy!.blackout();
      expect(await readRest(reader)).toContain('[DONE]');
      // The client has its whole answer. The database comes back a moment later.
      await sleep(1000);
      proxy!.restore();

      // The gateway keeps serving: a second request goes through once the database answers again.
      const second = await fetch(`${gateway!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(spendRequest),
      });
      expect(second.status).toBe(200);
      await gateway!.settled();
      // The retry queue tries again at 0.5, 1, 2, 4 … s: wait until both are settled and logged (or fail below).
      await waitFor('both requests settled and logged', async () => {
        const settled = (await readReservations(inspector.db)).filter((row) => row.state === 'settled').length;
        const logged = (await inspector.db.selectFrom('logs').select('request_id').execute()).length;
        return settled === 2 && logged === 2 ? true : undefined;
      }, 25_000).catch(() => undefined);

      const reservations = await readReservations(inspector.db);
      const balances = await readBalances(inspector.db, spenderTokenName);
      const logs = await inspector.db.selectFrom('logs').select(['request_id', 'quota', 'usage_source']).execute();
      // What was delivered is charged (upstream usage: 86 each), the rest of the reservation handed back,
      // and each request has its log row.
      expect({ reservations: reservations.map((row) => ({ state: row.state, settledAmount: row.settledAmount })), tokenRemain: balances.token.remain, logRows: logs.length }).toEqual({
        reservations: [
          { state: 'settled', settledAmount: deliveredCharge },
          { state: 'settled', settledAmount: deliveredCharge },
        ],
        tokenRemain: grant - 2 * deliveredCharge,
        logRows: 2,
      });
    }, 40_000);

    /** A stream whose settlement finds the database down: resolves once the client has the whole answer. */
    async function streamThroughOutage(): Promise<void> {
      fixture!.upstream.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 1000 });
      const reader = await openSpendStream(gateway!);
      proxy!.blackout();
      await readRest(reader);
      await gateway!.settled();
    }

    it('makes a settle the database could not take at shutdown, when it is back by then', async () => {
      const { inspector } = await start();
      await streamThroughOutage();
      proxy!.restore();
      await fixture!.closeGateway(gateway!);
      const reservations = await readReservations(inspector.db);
      const logs = await inspector.db.selectFrom('logs').select(['quota']).execute();
      expect({ reservations: reservations.map((row) => ({ state: row.state, settledAmount: row.settledAmount })), logs }).toEqual({
        reservations: [{ state: 'settled', settledAmount: deliveredCharge }],
        logs: [{ quota: deliveredCharge }],
      });
    }, 40_000);

    it('stops retrying within SHUTDOWN_TIMEOUT when the database is still down, leaving the reservation to start-up recovery', async () => {
      const { inspector } = await start({ SHUTDOWN_TIMEOUT: '2' });
      await streamThroughOutage();
      const closing = Date.now();
      await fixture!.closeGateway(gateway!);
      // Bounded by SHUTDOWN_TIMEOUT (2 s) plus the rest of the close, not by the retry queue's patience.
      expect(Date.now() - closing).toBeLessThan(10_000);
      proxy!.restore();
      expect((await readReservations(inspector.db)).map((row) => row.state)).toEqual(['reserved']);
    }, 40_000);

    it('hands a reservation back when the connection broke after the server committed it and the client got an error', async () => {
      const { upstream, inspector } = await start();
      proxy!.dropAnswers();
      const response = await fetch(`${gateway!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(spendRequest),
      });
      // The reserve's outcome is unknown to the gateway: the client is refused, no upstream is called.
      const failedStatus = response.status;
      await response.arrayBuffer();
      proxy!.restore();
      expect(failedStatus).toBeGreaterThanOrEqual(500);
      expect(upstream.requests.length).toBe(0);
      await gateway!.settled();
      // The release is queued and rechecked at 0.5, 1, 2, 4, 8 s: wait until nothing is open (or fail below).
      await waitFor('no reservation left open', async () => {
        const rows = await readReservations(inspector.db);
        return rows.length > 0 && rows.every((row) => row.state !== 'reserved') ? true : undefined;
      }, 25_000).catch(() => undefined);

      const reservations = await readReservations(inspector.db);
      const balances = await readBalances(inspector.db, spenderTokenName);
      // Served nothing, so it may cost nothing: no reservation may stay open holding the balances (until a
      // restart of this NODE_NAME, or 24 h, then charged in full as if a crash had cut it).
      expect({ open: reservations.filter((row) => row.state === 'reserved').map((row) => row.amount), tokenRemain: balances.token.remain, userQuota: balances.user.quota }).toEqual({
        open: [],
        tokenRemain: grant,
        userQuota: wallet,
      });
      expect(spendReservation).toBe(761);
    }, 40_000);
  });
}
