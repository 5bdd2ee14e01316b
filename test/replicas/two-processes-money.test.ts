/**
 * From the concurrency audit: two `relay serve` processes on one PostgreSQL or MySQL database — 30
 * concurrent requests overrunning their reservations never take a balance below zero and the books agree
 * (token, user, reservations, log rows); a client abort and a SIGTERM mid-stream leave no open reservation.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { createTestDatabase, serverUrls, type TestDatabase } from '../support/test-databases.js';
import { readBalances, readLogSummary, readReservations, waitFor } from '../billing-e2e/read-billing-state.js';
import { findFreePort, spawnGatewayProcess, type GatewayProcess } from '../billing-e2e/spawn-gateway-process.js';
import { tearDownProcesses, writeSpenderConfig } from '../billing-e2e/spend-grant-across-processes.js';
import { sendSpendRequest, spendRequest } from '../billing-e2e/spend-request.js';
import { spenderKey, spenderTokenName, spenderUsername } from '../billing-e2e/start-billing-fixture.js';

const grant = 20_000;
const wallet = 1_000_000_000;

const databases = [
  { dialect: 'postgres', available: serverUrls.postgres !== undefined },
  { dialect: 'mysql', available: serverUrls.mysql !== undefined },
] as const;

for (const { dialect, available } of databases) {
  describe.skipIf(!available)(`two gateway processes on one ${dialect} database: money at the edges`, () => {
    const processes: GatewayProcess[] = [];
    let upstream: FakeOpenaiUpstream;
    let database: TestDatabase | undefined;
    let inspector: DatabaseHandle | undefined;
    let removeConfig = () => undefined as void;

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      // Every answer reports 1,000 output tokens against a 100-token reservation: each one overruns.
      upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'], promptTokens: 7, completionTokens: 1000, chunkDelayMs: 5 });
      const config = writeSpenderConfig(upstream.url, { grant, wallet });
      removeConfig = config.remove;
      for (const nodeName of ['audit-a', 'audit-b']) {
        processes.push(spawnGatewayProcess({ port: await findFreePort(), databaseUrl: database.url, configPath: config.path, nodeName, env: { SHUTDOWN_TIMEOUT: '1' } }));
      }
      await Promise.all(processes.map((gateway) => gateway.waitUntilReady(50_000)));
      inspector = await createDatabase(database.url);
    }, 60_000);

    afterAll(() => tearDownProcesses({ processes, end: 'crash', dialect, database, inspector, upstream, removeConfig }), 30_000);


    async function expectBooksAgree() {
      const db = inspector!.db;
      const reservations = await waitFor('every reservation settled', async () => {
        const rows = await readReservations(db);
        return rows.every((row) => row.state === 'settled') ? rows : undefined;
      });
      const settled = reservations.reduce((total, row) => total + (row.settledAmount ?? 0), 0);
      const logs = await waitFor('a log row per reservation', async () => {
        const summary = await readLogSummary(db);
        return summary.rows >= reservations.length ? summary : undefined;
      });
      const balances = await readBalances(db, spenderTokenName);
      expect(balances.token.remain).toBeGreaterThanOrEqual(0);
      expect(balances.token.remain + balances.token.used).toBe(grant);
      expect(balances.user.quota + balances.user.used).toBe(wallet);
      expect(balances.user.used).toBe(balances.token.used);
      expect(settled).toBe(balances.token.used);
      expect(logs.quota).toBe(balances.token.used);
      return { balances, reservations };
    }

    it('30 overrunning requests at once over two processes: no balance below zero, every charge accounted for', async () => {
      const clients = processes.map((gateway) => new OpenAI({ apiKey: spenderKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 }));
      const outcomes = await Promise.all(Array.from({ length: 30 }, (_, index) => sendSpendRequest(clients[index % 2]!, index % 2 === 1)));
      const served = outcomes.filter((outcome) => outcome.kind === 'served').length;
      expect(served).toBeGreaterThan(0);
      const { balances } = await expectBooksAgree();
      expect(balances.token.requests).toBe(served);
    }, 60_000);

    it('a client abort mid-stream on each process settles the reservation', async () => {
      await inspector!.db.updateTable('tokens').set({ remain_quota: grant, used_quota: 0, request_count: 0 }).where('name', '=', spenderTokenName).execute();
      await inspector!.db.deleteFrom('quota_reservations').execute();
      await inspector!.db.deleteFrom('logs').execute();
      await inspector!.db.updateTable('users').set({ quota: wallet, used_quota: 0, request_count: 0 }).where('username', '=', spenderUsername).execute();
      for (const gateway of processes) {
        upstream.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 60_000 });
        const client = new AbortController();
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...spendRequest, stream: true }),
          signal: client.signal,
        });
        expect(response.status).toBe(200);
        await response.body!.getReader().read();
        client.abort();
      }
      await expectBooksAgree();
    }, 60_000);

    it('SIGTERM mid-stream: the stopping process settles its open reservation before it exits', async () => {
      const gateway = processes[1]!;
      upstream.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 60_000 });
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...spendRequest, stream: true }),
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      await reader.read();
      const drained = (async () => {
        try {
          for (;;) if ((await reader.read()).done) return;
        } catch {
          /* cut */
        }
      })();
      await gateway.stop(15_000);
      expect((await gateway.exited).signal).toBe(null);
      await drained;
      const open = (await readReservations(inspector!.db)).filter((row) => row.state !== 'settled');
      expect(open).toEqual([]);
      await expectBooksAgree();
    }, 60_000);
  });
}
