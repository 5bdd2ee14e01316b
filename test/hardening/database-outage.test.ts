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
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { createTestDatabase, serverUrls, type TestDatabase } from '../support/test-databases.js';
import { readBalances, readReservations, waitFor, waitUntilDisconnected } from '../billing-e2e/read-billing-state.js';
import { spendRequest, spendReservation } from '../billing-e2e/spend-request.js';
import { billingPrices, spenderKey, spenderTokenName, spenderUsername } from '../billing-e2e/start-billing-fixture.js';
import { startDatabaseProxy, type DatabaseProxy } from '../support/database-proxy.js';

const grant = 100_000;
const wallet = 1_000_000;

const databases = [
  { dialect: 'postgres' as const, available: serverUrls.postgres !== undefined },
  { dialect: 'mysql' as const, available: serverUrls.mysql !== undefined },
];

for (const { dialect, available } of databases) {
  describe.skipIf(!available)(`the database unreachable for a moment, on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let proxy: DatabaseProxy | undefined;
    let upstream: FakeOpenaiUpstream | undefined;
    let gateway: TestGateway | undefined;
    let inspector: DatabaseHandle | undefined;

    afterEach(async () => {
      proxy?.restore();
      await gateway?.gateway.close().catch(() => undefined);
      await inspector?.close();
      await proxy?.close();
      await upstream?.close();
      if (database !== undefined) {
        if (dialect === 'postgres') await waitUntilDisconnected(database.url);
        await database.drop();
      }
    }, 30_000);

    async function start(env: Record<string, string> = {}): Promise<void> {
      database = await createTestDatabase(dialect);
      const target = new URL(database.url);
      proxy = await startDatabaseProxy(target.hostname, Number(target.port || (dialect === 'postgres' ? 5432 : 3306)));
      // 7 prompt + 10 output tokens: 7 × 1.5 + 10 × 7.5 = 85.5 → 86 quota, far below the 761 reserved.
      upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'], promptTokens: 7, completionTokens: 10 });
      gateway = await startTestGateway({
        databaseUrl: proxy.urlFor(database.url),
        // No background database traffic of its own while the proxy plays tricks.
        env: { SYNC_FREQUENCY: '0', TASK_POLL_INTERVAL: '0', NODE_NAME: 'outage-node', ...env },
        config: {
          prices: { 'gpt-4o-mini': billingPrices['gpt-4o-mini'] },
          channels: [{ name: 'channel-a', type: 'openai', base_url: upstream.url, key: 'sk-upstream-a', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
          users: [{ username: spenderUsername, role: 'user', group: 'default', quota: wallet, enabled: true }],
          tokens: [{ name: spenderTokenName, user: spenderUsername, key: spenderKey, quota: grant, expires_at: 0, enabled: true }],
        },
      });
      inspector = await createDatabase(database.url);
    }

    const expectedCharge = 86;

    it('settles a stream at what it delivered once the database is back, when the database was down at its settlement', async () => {
      await start();
      upstream!.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 1500 });
      const response = await fetch(`${gateway!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...spendRequest, stream: true, stream_options: { include_usage: true } }),
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      await reader.read();
      // The database goes away while the stream runs; the stream itself is not disturbed.
      proxy!.blackout();
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      expect(text).toContain('[DONE]');
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
        const settled = (await readReservations(inspector!.db)).filter((row) => row.state === 'settled').length;
        const logged = (await inspector!.db.selectFrom('logs').select('request_id').execute()).length;
        return settled === 2 && logged === 2 ? true : undefined;
      }, 25_000).catch(() => undefined);

      const reservations = await readReservations(inspector!.db);
      const balances = await readBalances(inspector!.db, spenderTokenName);
      const logs = await inspector!.db.selectFrom('logs').select(['request_id', 'quota', 'usage_source']).execute();
      // What was delivered is charged (upstream usage: 86 each), the rest of the reservation handed back,
      // and each request has its log row.
      expect({ reservations: reservations.map((row) => ({ state: row.state, settledAmount: row.settledAmount })), tokenRemain: balances.token.remain, logRows: logs.length }).toEqual({
        reservations: [
          { state: 'settled', settledAmount: expectedCharge },
          { state: 'settled', settledAmount: expectedCharge },
        ],
        tokenRemain: grant - 2 * expectedCharge,
        logRows: 2,
      });
    }, 40_000);

    /** A stream whose settlement finds the database down: resolves once the client has the whole answer. */
    async function streamThroughOutage(): Promise<void> {
      upstream!.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 1000 });
      const response = await fetch(`${gateway!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...spendRequest, stream: true, stream_options: { include_usage: true } }),
      });
      const reader = response.body!.getReader();
      await reader.read();
      proxy!.blackout();
      while (!(await reader.read()).done);
      await gateway!.settled();
    }

    it('makes a settle the database could not take at shutdown, when it is back by then', async () => {
      await start();
      await streamThroughOutage();
      proxy!.restore();
      await gateway!.gateway.close();
      gateway = undefined;
      const reservations = await readReservations(inspector!.db);
      const logs = await inspector!.db.selectFrom('logs').select(['quota']).execute();
      expect({ reservations: reservations.map((row) => ({ state: row.state, settledAmount: row.settledAmount })), logs }).toEqual({
        reservations: [{ state: 'settled', settledAmount: expectedCharge }],
        logs: [{ quota: expectedCharge }],
      });
    }, 40_000);

    it('stops retrying within SHUTDOWN_TIMEOUT when the database is still down, leaving the reservation to start-up recovery', async () => {
      await start({ SHUTDOWN_TIMEOUT: '2' });
      await streamThroughOutage();
      const closing = Date.now();
      await gateway!.gateway.close();
      gateway = undefined;
      // Bounded by SHUTDOWN_TIMEOUT (2 s) plus the rest of the close, not by the retry queue's patience.
      expect(Date.now() - closing).toBeLessThan(10_000);
      proxy!.restore();
      expect((await readReservations(inspector!.db)).map((row) => row.state)).toEqual(['reserved']);
    }, 40_000);

    it('hands a reservation back when the connection broke after the server committed it and the client got an error', async () => {
      await start();
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
      expect(upstream!.requests.length).toBe(0);
      await gateway!.settled();
      // The release is queued and rechecked at 0.5, 1, 2, 4, 8 s: wait until nothing is open (or fail below).
      await waitFor('no reservation left open', async () => {
        const rows = await readReservations(inspector!.db);
        return rows.length > 0 && rows.every((row) => row.state !== 'reserved') ? true : undefined;
      }, 25_000).catch(() => undefined);

      const reservations = await readReservations(inspector!.db);
      const balances = await readBalances(inspector!.db, spenderTokenName);
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
