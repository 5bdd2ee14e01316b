import { afterAll, beforeAll, describe, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { createTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { findFreePort, spawnGatewayProcess, type GatewayProcess } from './spawn-gateway-process.js';
import { expectFiveOfThirtyServed, fiveSpendsGrant, tearDownProcesses, writeSpenderConfig } from './spend-grant-across-processes.js';
import { usageAtReservation } from './spend-request.js';

const nodeNames = ['worker-a', 'worker-b', 'worker-c'];

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
    const config = writeSpenderConfig(upstream.url, { grant: fiveSpendsGrant, wallet: 1_000_000_000, adminKey: 'sk-admin-three-sqlite-processes' });
    removeConfig = config.remove;
    // The first one creates the file and migrates it; the others then open it, as workers of one primary do.
    for (const nodeName of nodeNames) {
      const gateway = spawnGatewayProcess({ port: await findFreePort(), databaseUrl: database.url, configPath: config.path, nodeName });
      processes.push(gateway);
      await gateway.waitUntilReady(50_000);
    }
    inspector = await createDatabase(database.url);
  }, 90_000);

  afterAll(() => tearDownProcesses({ processes, end: 'stop', dialect: 'sqlite', database, inspector, upstream, removeConfig }), 30_000);


  it('never spends past the grant, together: 5 of 30 served, the rest 402 with no upstream call, every counter exact', async () => {
    await expectFiveOfThirtyServed({ processes, nodeNames, upstream, db: inspector!.db, channelName: 'channel-a' });
  }, 30_000);
});
