import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { createTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { readBalances, readReservations, waitFor, waitForLogRows } from './read-billing-state.js';
import { findFreePort, spawnGatewayProcess, writeConfigFile, type GatewayProcess } from './spawn-gateway-process.js';
import { insufficientQuotaEnvelope, sendSpendRequest, spendReservation, usageAtReservation, type SpendOutcome } from './spend-request.js';
import { billingPrices, spenderKey, spenderTokenName, spenderUsername } from './start-billing-fixture.js';

const nodeNames = ['worker-a', 'worker-b', 'worker-c'];
/** Five reservations of the spend request fit, a sixth does not. */
const grant = 5 * spendReservation + 400;

/**
 * Several processes on the embedded database, as `relay serve --workers N` runs them: each has its own
 * connection and group commit (its transactions defer a settle's counters to their end), and SQLite's
 * write lock is all they share.
 */
describe('three gateway processes sharing one SQLite file', () => {
  const processes: GatewayProcess[] = [];
  let upstream: FakeOpenaiUpstream;
  let database: TestDatabase | undefined;
  let inspector: DatabaseHandle | undefined;
  let removeConfig = () => undefined as void;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'], ...usageAtReservation, chunkDelayMs: 10 });
    const config = writeConfigFile({
      admin_key: 'sk-admin-three-sqlite-processes',
      prices: { 'gpt-4o-mini': billingPrices['gpt-4o-mini'] },
      channels: [{ name: 'channel-a', type: 'openai', base_url: upstream.url, key: 'sk-upstream-a', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
      users: [{ username: spenderUsername, role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: [{ name: spenderTokenName, user: spenderUsername, key: spenderKey, quota: grant, expires_at: 0, enabled: true }],
    });
    removeConfig = config.remove;
    // The first one creates the file and migrates it; the others then open it, as workers of one primary do.
    for (const nodeName of nodeNames) {
      const gateway = spawnGatewayProcess({ port: await findFreePort(), databaseUrl: database.url, configPath: config.path, nodeName });
      processes.push(gateway);
      await gateway.waitUntilReady(50_000);
    }
    inspector = await createDatabase(database.url);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(processes.map((gateway) => gateway.stop()));
    await inspector?.close();
    await upstream?.close();
    await database?.drop();
    removeConfig();
  }, 30_000);

  it('never spends past the grant, together: 5 of 30 served, the rest 402 with no upstream call, every counter exact', async () => {
    const clients = processes.map((gateway) => new OpenAI({ apiKey: spenderKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 }));
    const before = upstream.requests.length;
    const outcomes: SpendOutcome[] = await Promise.all(Array.from({ length: 30 }, (_, index) => sendSpendRequest(clients[index % clients.length]!, index % 2 === 1)));

    const served = outcomes.filter((outcome) => outcome.kind === 'served');
    const refused = outcomes.filter((outcome) => outcome.kind === 'refused');
    expect(served).toHaveLength(5);
    expect(refused).toHaveLength(25);
    for (const outcome of refused) {
      expect(outcome.kind === 'refused' && outcome.status).toBe(402);
      expect(outcome.kind === 'refused' && outcome.error).toEqual(insufficientQuotaEnvelope('this API key'));
    }
    expect(upstream.requests.length - before).toBe(5);

    const db = inspector!.db;
    const reservations = await waitFor('every reservation settled', async () => {
      const rows = await readReservations(db);
      return rows.length === 5 && rows.every((row) => row.state === 'settled') ? rows : undefined;
    });
    expect(reservations.every((row) => nodeNames.includes(row.owner))).toBe(true);
    expect(reservations.map((row) => row.settledAmount)).toEqual([761, 761, 761, 761, 761]);
    const logs = await waitForLogRows(db, 5);
    expect(logs.rows).toBe(5);

    const balances = await readBalances(db, spenderTokenName);
    expect(balances.token).toEqual({ used: 5 * 761, remain: 400, requests: 5 });
    expect(balances.user.used + balances.user.quota).toBe(1_000_000_000);
    expect(balances.user.requests).toBe(5);
    const channel = await db.selectFrom('channels').select(['used_quota', 'request_count']).where('name', '=', 'channel-a').executeTakeFirstOrThrow();
    expect({ used: Number(channel.used_quota), requests: Number(channel.request_count) }).toEqual({ used: 5 * 761, requests: 5 });
    expect(logs.quota).toBe(balances.token.used);
  }, 30_000);
});
