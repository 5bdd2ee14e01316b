/**
 * A gateway killed (SIGKILL) right after it settled requests, before its log writer's batch went out
 * (rows wait up to 500 ms): the charges are in the database, their rows died with the process. The same
 * NODE_NAME's next start writes a row for each charge that has none, from its settlement (`usage_source:
 * 'settled'`, the settled amount, the request id, the token), so the log adds up to what the token was
 * charged — one row per request, none twice. After a clean shutdown the next start writes none. The rows
 * name the model and the channel the reservation kept; a node that never comes back has its rows written
 * by the others, once between them.
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
      // A port per node name, so that nodes of different names can run side by side.
      const ports = new Map<string, number>();
      const start = async (name = nodeName) => {
        const port = ports.get(name) ?? (await findFreePort());
        ports.set(name, port);
        const gateway = spawnGatewayProcess({ port, databaseUrl: database!.url, configPath: config!.path, nodeName: name });
        processes.push(gateway);
        return gateway;
      };
      return { start };
    }

    /** The log rows of `ids`, as recovery wrote them or the requests did. */
    async function rowsOf(db: DatabaseHandle['db'], ids: string[]) {
      const rows = await db.selectFrom('logs').select(['request_id', 'quota', 'usage_source', 'model', 'channel_id']).where('request_id', 'in', ids).execute();
      return rows.map((row) => ({ ...row, quota: Number(row.quota), channel_id: row.channel_id === null ? null : Number(row.channel_id) }));
    }

    /** Kills `gateway`, then deletes what its log writer did write of `ids`: every row lost, whatever the timing. */
    async function crashLosingRows(gateway: GatewayProcess, db: DatabaseHandle['db'], ids: string[]) {
      await gateway.crash();
      await db.deleteFrom('logs').where('request_id', 'in', ids).execute();
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
      const first = await start();
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

      const second = await start();
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
      const first = await start();
      await first.waitUntilReady();
      inspector = await createDatabase(database!.url);
      const db = inspector.db;
      const ids = await spend(first, db);
      await first.stop();
      const second = await start();
      await second.waitUntilReady();
      // A run that wrote every row before it was killed leaves nothing to add either.
      await waitFor('the rows written', async () => ((await db.selectFrom('logs').select('id').execute()).length === requests ? true : undefined), 5000);
      await second.crash();
      const third = await start();
      await third.waitUntilReady();
      const logs = await db.selectFrom('logs').select(['request_id', 'usage_source']).execute();
      expect(logs.map((row) => row.request_id).sort()).toEqual([...ids].sort());
      expect(logs.filter((row) => row.usage_source === 'settled')).toEqual([]);
    }, 60_000);

    it('writes a lost row with the model asked for and the channel charged, from the reservation', async () => {
      const { start } = await setUp();
      const first = await start();
      await first.waitUntilReady();
      inspector = await createDatabase(database!.url);
      const db = inspector.db;
      const ids = await spend(first, db);
      await crashLosingRows(first, db, ids);
      const channel = await db.selectFrom('channels').select('id').where('name', '=', 'channel-a').executeTakeFirstOrThrow();
      const settled = await readReservations(db);

      const second = await start();
      await second.waitUntilReady();
      const rows = await rowsOf(db, ids);
      expect(rows.map((row) => row.request_id).sort()).toEqual([...ids].sort());
      for (const row of rows) {
        expect(row).toMatchObject({ usage_source: 'settled', model: 'gpt-4o-mini', channel_id: Number(channel.id) });
        expect(row.quota).toBe(settled.find((reservation) => reservation.id === row.request_id)!.settledAmount);
      }
      expect(second.output()).toContain(`Wrote ${requests} log row(s) a crash lost`);
    }, 60_000);

    it('has another node write the lost rows of a node that never came back, once between two, and that node none when it does', async () => {
      const { start } = await setUp();
      const first = await start();
      await first.waitUntilReady();
      inspector = await createDatabase(database!.url);
      const db = inspector.db;
      const ids = await spend(first, db);
      await crashLosingRows(first, db, ids);
      // Hours later: the dead run's mark beat last 7 hours ago, its charges were settled 2 hours ago.
      const mark = await db.selectFrom('options').select('value').where('key', '=', `log_run:${nodeName}`).executeTakeFirstOrThrow();
      const hour = 60 * 60 * 1000;
      await db.updateTable('options').set({ value: `${mark.value.split(':')[0]}:${Date.now() - 7 * hour}` }).where('key', '=', `log_run:${nodeName}`).execute();
      await db.updateTable('quota_reservations').set({ settled_at: Date.now() - 2 * hour }).where('id', 'in', ids).execute();
      const charged = (await readReservations(db)).reduce((total, reservation) => total + reservation.settledAmount!, 0);

      // Two other nodes start at once: between them, one row per request.
      const others = await Promise.all([start('log-crash-other-1'), start('log-crash-other-2')]);
      await Promise.all(others.map((gateway) => gateway.waitUntilReady()));
      const rows = await rowsOf(db, ids);
      expect(rows.map((row) => row.request_id).sort()).toEqual([...ids].sort());
      expect(rows.every((row) => row.usage_source === 'settled' && row.model === 'gpt-4o-mini')).toBe(true);
      expect(rows.reduce((total, row) => total + row.quota, 0)).toBe(charged);
      expect((await db.selectFrom('options').select('value').where('key', '=', `log_run:${nodeName}`).executeTakeFirstOrThrow()).value).toBe('clean');

      // The node comes back after all: its run was recovered, it writes no second row.
      const back = await start();
      await back.waitUntilReady();
      expect((await rowsOf(db, ids)).length).toBe(requests);
    }, 60_000);
  });
}
