/**
 * A gateway killed (SIGKILL) right after it settled requests, before its log writer's batch went out
 * (rows wait up to 500 ms): the charges are in the database, their rows died with the process. The same
 * NODE_NAME's next start writes a row for each charge that has none, from its settlement (`usage_source:
 * 'settled'`, the settled amount, the request id, the token), so the log adds up to what the token was
 * charged — one row per request, none twice. After a clean shutdown the next start writes none.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { allDialects, createTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { readBalances, readReservations, waitFor, waitUntilDisconnected } from './read-billing-state.js';
import { findFreePort, spawnGatewayProcess, writeConfigFile, type GatewayProcess } from './spawn-gateway-process.js';
import { spendRequest } from './spend-request.js';
import { billingPrices, spenderKey, spenderTokenName, spenderUsername } from './start-billing-fixture.js';

const grant = 1_000_000;
const nodeName = 'log-crash-node';
const requests = 6;

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`log rows of charges settled just before a crash, on ${dialect}`, () => {
    const processes: GatewayProcess[] = [];
    let upstream: FakeOpenaiUpstream | undefined;
    let database: TestDatabase | undefined;
    let inspector: DatabaseHandle | undefined;
    let config: { path: string; remove(): void } | undefined;

    afterEach(async () => {
      for (const gateway of processes.splice(0)) await gateway.crash();
      await inspector?.close();
      inspector = undefined;
      await upstream?.close();
      if (database !== undefined) {
        if (dialect === 'postgres') await waitUntilDisconnected(database.url);
        await database.drop();
      }
      config?.remove();
    });

    async function setUp() {
      database = await createTestDatabase(dialect);
      upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'] });
      config = writeConfigFile({
        prices: { 'gpt-4o-mini': billingPrices['gpt-4o-mini'] },
        channels: [{ name: 'channel-a', type: 'openai', base_url: upstream.url, key: 'sk-upstream-a', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
        users: [{ username: spenderUsername, role: 'user', group: 'default', quota: grant, enabled: true }],
        tokens: [{ name: spenderTokenName, user: spenderUsername, key: spenderKey, quota: grant, expires_at: 0, enabled: true }],
      });
      const port = await findFreePort();
      const start = () => {
        const gateway = spawnGatewayProcess({ port, databaseUrl: database!.url, configPath: config!.path, nodeName });
        processes.push(gateway);
        return gateway;
      };
      return { start };
    }

    /** Whole and streamed requests through the openai SDK; resolves once every reservation is settled. */
    async function spend(gateway: GatewayProcess, db: DatabaseHandle['db']): Promise<string[]> {
      const client = new OpenAI({ apiKey: spenderKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const ids = await Promise.all(
        Array.from({ length: requests }, async (_, index) => {
          if (index % 2 === 0) {
            const { response } = await client.chat.completions.create(spendRequest).withResponse();
            return response.headers.get('x-request-id')!;
          }
          const { data, response } = await client.chat.completions.create({ ...spendRequest, stream: true }).withResponse();
          for await (const _chunk of data) {
            // read to the end
          }
          return response.headers.get('x-request-id')!;
        }),
      );
      await waitFor('every reservation settled', async () => {
        const reservations = await readReservations(db);
        return reservations.length === requests && reservations.every((reservation) => reservation.state === 'settled') ? true : undefined;
      }, 5000);
      return ids;
    }

    it('writes the lost rows from the settlements at the next start: one per charge, adding up to what the token was charged', async () => {
      const { start } = await setUp();
      const first = start();
      await first.waitUntilReady();
      inspector = await createDatabase(database!.url);
      const db = inspector.db;
      const ids = await spend(first, db);
      await first.crash();
      expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });

      const settled = await readReservations(db);
      const charged = settled.reduce((total, reservation) => total + reservation.settledAmount!, 0);
      expect(charged).toBeGreaterThan(0);
      // The money is in the database whatever the log writer had done: every charge settled, none open.
      expect((await readBalances(db, spenderTokenName)).token).toMatchObject({ used: charged, remain: grant - charged });
      const writtenBefore = await db.selectFrom('logs').select('request_id').execute();

      const second = start();
      await second.waitUntilReady();
      const logs = await db.selectFrom('logs').select(['request_id', 'quota', 'usage_source', 'token_name', 'status']).execute();
      // One row per request, none twice (rows the crashed run did write are not written again).
      expect(logs.map((row) => row.request_id).sort()).toEqual([...ids].sort());
      for (const reservation of settled) {
        const row = logs.find((entry) => entry.request_id === reservation.id)!;
        expect(Number(row.quota)).toBe(reservation.settledAmount);
        if (!writtenBefore.some((entry) => entry.request_id === reservation.id)) expect(row).toMatchObject({ usage_source: 'settled', token_name: spenderTokenName, status: 0 });
      }
      expect(logs.reduce((total, row) => total + Number(row.quota), 0)).toBe(charged);
      const lost = requests - writtenBefore.length;
      if (lost > 0) expect(second.output()).toContain(`Wrote ${lost} log row(s) a crash lost`);
    }, 60_000);

    it('writes no row at the start after a clean shutdown, nor after a crash that lost none', async () => {
      const { start } = await setUp();
      const first = start();
      await first.waitUntilReady();
      inspector = await createDatabase(database!.url);
      const db = inspector.db;
      const ids = await spend(first, db);
      await first.stop();
      const second = start();
      await second.waitUntilReady();
      // A run that wrote every row before it was killed leaves nothing to add either.
      await waitFor('the rows written', async () => ((await db.selectFrom('logs').select('id').execute()).length === requests ? true : undefined), 5000);
      await second.crash();
      const third = start();
      await third.waitUntilReady();
      const logs = await db.selectFrom('logs').select(['request_id', 'usage_source']).execute();
      expect(logs.map((row) => row.request_id).sort()).toEqual([...ids].sort());
      expect(logs.filter((row) => row.usage_source === 'settled')).toEqual([]);
    }, 60_000);
  });
}
