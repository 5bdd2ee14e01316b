import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort } from '../billing-e2e/spawn-gateway-process.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { createTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { createDatabase } from '../../src/storage/create-database.js';
import { sql } from 'kysely';
import { chatStatus, replicaConfig, runRelay, spawnRelay, startReplica, upstreamKey, within, writeConfig, type Served } from './replica-fixture.js';

describe('several processes on one SQLite file, no Redis', { timeout: 30_000 }, () => {
  const open: TestGateway[] = [];
  const served: Served[] = [];
  let upstream: FakeOpenaiUpstream | undefined;
  let database: TestDatabase | undefined;
  afterEach(async () => {
    for (const gateway of open.splice(0)) await gateway.gateway.close().catch(() => undefined);
    for (const one of served.splice(0)) one.kill();
    await upstream?.close();
    await database?.drop();
  });

  it('without Redis, rate limits are per process: per-user 3 rpm admits 3 on each of two processes', async () => {
    database = await createTestDatabase('sqlite');
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const extra = { rate_limits: { per_user: { rpm: 3 } } };
    const a = await startReplica(database.url, upstream.url, { SYNC_FREQUENCY: '1' }, extra);
    const b = await startReplica(database.url, upstream.url, { SYNC_FREQUENCY: '1' }, extra);
    open.push(a, b);
    const statuses: number[] = [];
    for (let index = 0; index < 8; index += 1) statuses.push(await chatStatus(index % 2 === 0 ? a.url : b.url));
    expect(statuses.filter((status) => status === 200)).toHaveLength(6);
  });

  it('a price that a second process applies from its config file at start reaches the running process within SYNC_FREQUENCY', async () => {
    database = await createTestDatabase('sqlite');
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const a = await startReplica(database.url, upstream.url, { SYNC_FREQUENCY: '1' });
    open.push(a);
    const b = await startReplica(database.url, upstream.url, { SYNC_FREQUENCY: '1' }, { prices: { 'gpt-4o-mini': { input: 300, output: 1500 } } });
    open.push(b);
    expect(b.gateway.services.catalog.snapshot.prices.get('gpt-4o-mini')?.input).toBe(300);
    const took = await within(3000, async () => a.gateway.services.catalog.snapshot.prices.get('gpt-4o-mini')?.input === 300);
    expect(took, 'process A still prices gpt-4o-mini at the old input price').toBeGreaterThanOrEqual(0);
  });

  it('a channel a second process adds from its config file at start is loaded by the running process within SYNC_FREQUENCY', async () => {
    database = await createTestDatabase('sqlite');
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const a = await startReplica(database.url, upstream.url, { SYNC_FREQUENCY: '1' });
    open.push(a);
    const base = replicaConfig(upstream.url);
    const b = await startReplica(database.url, upstream.url, { SYNC_FREQUENCY: '1' }, {
      channels: [...base.channels!, { ...base.channels![0]!, name: 'ch-b', priority: 5 }],
    });
    open.push(b);
    const took = await within(3000, async () => a.gateway.services.catalog.snapshot.channels.some((channel) => channel.name === 'ch-b'));
    expect(took, 'process A never loaded ch-b').toBeGreaterThanOrEqual(0);
  });

  it('three `relay serve` processes started at once on a new SQLite file all come up', async () => {
    database = await createTestDatabase('sqlite');
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const config = writeConfig(replicaConfig(upstream.url));
    for (let index = 0; index < 3; index += 1) served.push(spawnRelay(['serve'], { DATABASE_URL: database.url, RELAY_CONFIG: config, NODE_NAME: `s-${index}` }, await findFreePort()));
    const outcomes = await Promise.allSettled(served.map((one) => one.ready()));
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? 'ready' : String(outcome.reason).slice(0, 600)))).toEqual(['ready', 'ready', 'ready']);
    for (const one of served) expect(await chatStatus(one.url)).toBe(200);
  });

  it('`relay migrate` and `relay serve` at once on a new SQLite file both succeed', async () => {
    database = await createTestDatabase('sqlite');
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const config = writeConfig(replicaConfig(upstream.url));
    const server = spawnRelay(['serve'], { DATABASE_URL: database.url, RELAY_CONFIG: config, NODE_NAME: 'm-serve' }, await findFreePort());
    served.push(server);
    const [migrated, ready] = await Promise.allSettled([runRelay(['migrate'], { DATABASE_URL: database.url }), server.ready()]);
    expect(ready.status === 'fulfilled' ? 'ready' : String((ready as PromiseRejectedResult).reason).slice(0, 600)).toBe('ready');
    expect(migrated.status === 'fulfilled' ? migrated.value.code : -1, migrated.status === 'fulfilled' ? migrated.value.output : '').toBe(0);
  });

  it('three `relay migrate` processes on one new SQLite file at the same moment all succeed, and migrate it once', async () => {
    // Separate processes: better-sqlite3 is synchronous, so two connections in one process would wait on
    // each other's lock with the event loop blocked (the lock is between processes).
    database = await createTestDatabase('sqlite');
    const runs = await Promise.all([1, 2, 3].map(() => runRelay(['migrate'], { DATABASE_URL: database!.url })));
    expect(runs.map((run) => run.code), runs.map((run) => run.output).join('\n')).toEqual([0, 0, 0]);
    const migrated = await createDatabase(database.url);
    try {
      const tables = (await migrated.db.introspection.getTables()).map((table) => table.name);
      expect(tables).toContain('quota_reservations');
      expect(tables).not.toContain('quota_reservations_next');
      const applied = await sql<{ name: string }>`select name from relay_migrations`.execute(migrated.db);
      expect(new Set(applied.rows.map((row) => row.name)).size).toBe(applied.rows.length);
    } finally {
      await migrated.close();
    }
  });

  it('relay serve --workers 2 on SQLite: both workers come up and serve', async () => {
    database = await createTestDatabase('sqlite');
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const config = writeConfig(replicaConfig(upstream.url));
    const cluster = spawnRelay(['serve', '--workers', '2'], { DATABASE_URL: database.url, RELAY_CONFIG: config, NODE_NAME: 'sq-cluster' }, await findFreePort());
    served.push(cluster);
    await cluster.ready();
    const both = await within(20_000, async () => (cluster.output().match(/listening on/g) ?? []).length >= 2);
    expect(both, cluster.output()).toBeGreaterThanOrEqual(0);
    expect(cluster.output()).not.toMatch(/exited|Error/);
    for (const pid of cluster.workerPids()) process.kill(pid, 'SIGKILL');
  });
});
