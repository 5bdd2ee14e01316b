/**
 * From the multi-process red team (session rmulti): two `relay serve` processes on one database, one of
 * them killed with SIGKILL while it relays streams, the other going on spending the same token.
 * The killed process's reservations keep holding their amounts (the survivor cannot spend them), its
 * restart under the same NODE_NAME settles each once at its reserved amount, and afterwards the books
 * agree to the unit: exactly the grant's worth of requests charged, token, user, reservations and log
 * rows. SQLite (one file, no Redis), PostgreSQL (with Redis when RELAY_TEST_REDIS_URL is set) and MySQL
 * (no Redis).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startOwnRedis, type OwnRedis } from '../support/own-redis.js';
import { createTestDatabase, serverUrls, type TestDatabase } from '../support/test-databases.js';
import { readBalances, readReservations, waitFor, waitForLogRows } from '../billing-e2e/read-billing-state.js';
import { findFreePort, spawnGatewayProcess, type GatewayProcess } from '../billing-e2e/spawn-gateway-process.js';
import { tearDownProcesses, writeSpenderConfig } from '../billing-e2e/spend-grant-across-processes.js';
import { insufficientQuotaEnvelope, sendSpendRequest, spendRequest, spendReservation, usageAtReservation } from '../billing-e2e/spend-request.js';
import { spenderKey, spenderTokenName } from '../billing-e2e/start-billing-fixture.js';

/** Requests the grant affords; `held` of them are the killed process's streams. */
const affordable = 5;
const held = 2;
const grant = affordable * spendReservation + 400;
const wallet = 1_000_000_000;
const burst = 20;

const databases = [
  { dialect: 'sqlite', redis: false, available: true },
  { dialect: 'postgres', redis: serverUrls.redis !== undefined, available: serverUrls.postgres !== undefined },
  { dialect: 'mysql', redis: false, available: serverUrls.mysql !== undefined },
] as const;

for (const { dialect, redis, available } of databases) {
  describe.skipIf(!available)(`two gateway processes on one ${dialect} database${redis ? ' and Redis' : ''}, one killed mid-stream`, () => {
    const running: GatewayProcess[] = [];
    let upstream: FakeOpenaiUpstream;
    let database: TestDatabase | undefined;
    let inspector: DatabaseHandle | undefined;
    let ownRedis: OwnRedis | undefined;
    let configPath = '';
    let removeConfig = () => undefined as void;

    const start = (nodeName: string, port: number) => {
      const gateway = spawnGatewayProcess({ port, databaseUrl: database!.url, configPath, nodeName, ...(ownRedis === undefined ? {} : { redisUrl: ownRedis.url }) });
      running.push(gateway);
      return gateway;
    };

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'], ...usageAtReservation, chunkDelayMs: 10 });
      const config = writeSpenderConfig(upstream.url, { grant, wallet });
      configPath = config.path;
      removeConfig = config.remove;
      if (redis) ownRedis = await startOwnRedis();
      inspector = undefined;
    }, 30_000);

    afterAll(() => tearDownProcesses({ processes: running, end: 'crash', dialect, database, inspector, upstream, ownRedis, removeConfig }), 30_000);


    it(`holds the killed process's ${held} streams until its restart settles them once; the other process serves exactly the rest of the grant`, async () => {
      const victimPort = await findFreePort();
      const victim = start('victim', victimPort);
      // SQLite: the first creates and migrates the file, then the other opens it (as workers of one primary).
      if (dialect === 'sqlite') await victim.waitUntilReady(50_000);
      const survivors = [start('survivor', await findFreePort())];
      await Promise.all([victim, ...survivors].map((gateway) => gateway.waitUntilReady(50_000)));
      inspector = await createDatabase(database!.url);
      const db = inspector.db;

      // The victim relays `held` streams that send their first chunk and then hang.
      const clients: AbortController[] = [];
      for (let index = 0; index < held; index += 1) {
        upstream.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 60_000 });
        const client = new AbortController();
        clients.push(client);
        const response = await fetch(`${victim.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...spendRequest, stream: true }),
          signal: client.signal,
        });
        expect(response.status).toBe(200);
        expect(new TextDecoder().decode((await response.body!.getReader().read()).value)).toContain('chat.completion.chunk');
      }
      const open = await waitFor('the victim\'s open reservations', async () => {
        const rows = (await readReservations(db)).filter((row) => row.state === 'reserved');
        return rows.length === held ? rows : undefined;
      });
      expect(open.every((row) => row.owner === 'victim' && row.amount === spendReservation)).toBe(true);

      await victim.crash();
      for (const client of clients) client.abort();
      expect(await victim.exited).toMatchObject({ signal: 'SIGKILL' });

      // The survivor goes on: a burst of streams, which only the rest of the grant can pay for.
      const openaiClients = survivors.map((gateway) => new OpenAI({ apiKey: spenderKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 }));
      const upstreamBefore = upstream.requests.length;
      const outcomes = await Promise.all(Array.from({ length: burst }, (_, index) => sendSpendRequest(openaiClients[index % openaiClients.length]!, true)));
      const served = outcomes.filter((outcome) => outcome.kind === 'served');
      const refused = outcomes.filter((outcome) => outcome.kind === 'refused');
      expect(served).toHaveLength(affordable - held);
      expect(refused).toHaveLength(burst - (affordable - held));
      for (const outcome of refused) {
        expect(outcome.kind === 'refused' && outcome.status).toBe(402);
        expect(outcome.kind === 'refused' && outcome.error).toEqual(insufficientQuotaEnvelope('this API key'));
      }
      expect(upstream.requests.length - upstreamBefore).toBe(affordable - held);
      await waitFor('the survivor\'s settlements', async () => {
        const rows = await readReservations(db);
        return rows.filter((row) => row.state === 'settled').length === affordable - held ? true : undefined;
      });
      // The victim's reservations are still open and still held: nobody else settles them (they are not 24 h old).
      expect((await readReservations(db)).filter((row) => row.state === 'reserved').map((row) => row.id).sort()).toEqual(open.map((row) => row.id).sort());

      // The victim starts again under its name, while the survivor keeps running.
      const restarted = start('victim', victimPort);
      await restarted.waitUntilReady(50_000);
      const announcement = `Settled ${held} reservation(s) left open by a crash (${held * spendReservation} quota units charged as reserved).`;
      await waitFor('the recovery announcement', async () => (restarted.output().includes(announcement) ? true : undefined), 5000).catch(() => undefined);
      expect(restarted.output()).toContain(announcement);

      // Nothing left: every process refuses the next request, the restarted one too.
      for (const gateway of [restarted, ...survivors]) {
        const client = new OpenAI({ apiKey: spenderKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 });
        expect(await sendSpendRequest(client, true)).toMatchObject({ kind: 'refused', status: 402 });
      }

      const reservations = await readReservations(db);
      expect(reservations.every((row) => row.state === 'settled')).toBe(true);
      expect(reservations.map((row) => row.settledAmount)).toEqual(Array.from({ length: affordable }, () => spendReservation));
      const logs = await waitForLogRows(db, affordable);
      expect(logs.rows).toBe(affordable);
      expect([...logs.requestIds].sort()).toEqual(reservations.map((row) => row.id).sort());
      const recoveredRows = await db.selectFrom('logs').select(['request_id', 'usage_source', 'quota']).where('usage_source', '=', 'reserved').execute();
      expect(recoveredRows.map((row) => row.request_id).sort()).toEqual(open.map((row) => row.id).sort());
      const balances = await readBalances(db, spenderTokenName);
      expect(balances.token).toEqual({ used: affordable * spendReservation, remain: 400, requests: affordable });
      expect(balances.user).toEqual({ used: affordable * spendReservation, quota: wallet - affordable * spendReservation, requests: affordable });
      expect(logs.quota).toBe(balances.token.used);
      const channel = await db.selectFrom('channels').select(['used_quota', 'request_count']).where('name', '=', 'channel-a').executeTakeFirstOrThrow();
      // Recovered charges count on no channel (which one served died with the process): the survivor's only.
      expect({ used: Number(channel.used_quota), requests: Number(channel.request_count) }).toEqual({ used: (affordable - held) * spendReservation, requests: affordable - held });
    }, 120_000);
  });
}
