import { Agent, fetch as undiciFetch } from 'undici';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { findFreePort } from '../billing-e2e/spawn-gateway-process.js';
import { createDatabase } from '../../src/storage/create-database.js';
import { runRetention } from '../../src/storage/start-retention.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { createTestDatabase, serverUrls, type TestDatabase } from '../support/test-databases.js';
import { catalogSyncSuite } from './catalog-sync-suite.js';
import { chatStatus, clearRateWindows, replicaConfig, replicaRedisUrl, runRelay, spawnRelay, startReplica, upstreamKey, userKey, within, writeConfig, type Served } from './replica-fixture.js';

async function query<T = any>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

const withPostgres = serverUrls.postgres !== undefined;
const withPostgresAndRedis = withPostgres && serverUrls.redis !== undefined;

describe.skipIf(!withPostgresAndRedis)('PostgreSQL + Redis (SYNC_FREQUENCY=0): admin changes reach the other process at once', { timeout: 30_000 }, () => {
  catalogSyncSuite({ freshDatabase: () => createTestDatabase('postgres'), env: { SYNC_FREQUENCY: '0', REDIS_URL: withPostgresAndRedis ? replicaRedisUrl() : '' }, deadlineMs: 700 });
});

describe.skipIf(!withPostgres)('PostgreSQL without Redis (SYNC_FREQUENCY=1): admin changes reach the other process within ~1 s', { timeout: 30_000 }, () => {
  catalogSyncSuite({ freshDatabase: () => createTestDatabase('postgres'), env: { SYNC_FREQUENCY: '1' }, deadlineMs: 2500 });
});

describe.skipIf(!withPostgresAndRedis)('PostgreSQL + Redis: CLI changes, shared rate limits, recovery and migration across processes', { timeout: 30_000 }, () => {
  const open: TestGateway[] = [];
  let upstream: FakeOpenaiUpstream | undefined;
  let database: TestDatabase | undefined;
  let pgUrl = '';
  const redisUrl = withPostgresAndRedis ? replicaRedisUrl() : '';
  async function freshDatabase(): Promise<void> {
    database = await createTestDatabase('postgres');
    pgUrl = database.url;
  }
  afterEach(async () => {
    for (const gateway of open.splice(0)) await gateway.gateway.close().catch(() => undefined);
    await upstream?.close();
    upstream = undefined;
    await database?.drop();
    database = undefined;
  });

  it('a key made by `relay token create` with REDIS_URL works on a running gateway at once (SYNC_FREQUENCY=0: only Redis carries the change)', async () => {
    await freshDatabase();
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const a = await startReplica(pgUrl, upstream.url, { SYNC_FREQUENCY: '0', REDIS_URL: redisUrl });
    open.push(a);
    const made = await runRelay(['token', 'create', '--user', 'carol', '--name', 'cli-key', '--quota', '100000'], { DATABASE_URL: pgUrl, REDIS_URL: redisUrl });
    expect(made.code).toBe(0);
    const key = /sk-[A-Za-z0-9_-]{20,}/.exec(made.output)?.[0];
    expect(key).toBeDefined();
    let last = 0;
    const took = await within(2000, async () => (last = await chatStatus(a.url, key)) === 200);
    expect(took, `last status ${last}`).toBeGreaterThanOrEqual(0);
  });

  it('per-user rpm with Redis is shared: 3 rpm over two processes admits 3 of 8', async () => {
    await freshDatabase();
    await clearRateWindows(redisUrl);
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const env = { SYNC_FREQUENCY: '0', REDIS_URL: redisUrl };
    const extra = { rate_limits: { per_user: { rpm: 3 } } };
    const a = await startReplica(pgUrl, upstream.url, env, extra);
    const b = await startReplica(pgUrl, upstream.url, env, extra);
    open.push(a, b);
    const statuses: number[] = [];
    for (let index = 0; index < 8; index += 1) statuses.push(await chatStatus(index % 2 === 0 ? a.url : b.url));
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);
  });

  it('per-IP rpm with Redis is shared: 4 rpm over two processes admits 4 of 8', async () => {
    await freshDatabase();
    await clearRateWindows(redisUrl);
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const env = { SYNC_FREQUENCY: '0', REDIS_URL: redisUrl };
    const extra = { rate_limits: { per_ip: { rpm: 4 } } };
    const a = await startReplica(pgUrl, upstream.url, env, extra);
    const b = await startReplica(pgUrl, upstream.url, env, extra);
    open.push(a, b);
    const statuses: number[] = [];
    for (let index = 0; index < 8; index += 1) statuses.push(await chatStatus(index % 2 === 0 ? a.url : b.url));
    expect(statuses.filter((status) => status === 200)).toHaveLength(4);
  });

  it('two processes starting at once on a stale open reservation (>24 h, dead owner) charge it once', async () => {
    await freshDatabase();
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const seed = await startReplica(pgUrl, upstream.url, { SYNC_FREQUENCY: '0' });
    await seed.gateway.close();
    const [token] = await query(pgUrl, `select id, user_id, remain_quota, used_quota from tokens where name = 'carol-key'`);
    const amount = 5000;
    const old = Date.now() - 25 * 3600_000;
    await query(pgUrl, `update tokens set remain_quota = remain_quota - ${amount} where id = ${token.id}`);
    await query(pgUrl, `update users set quota = quota - ${amount} where id = ${token.user_id}`);
    await query(pgUrl, `insert into quota_reservations (id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at) values ('stale-1', ${token.id}, ${token.user_id}, ${amount}, 'dead-node', 'reserved', null, ${old}, null)`);
    const [a, b] = await Promise.all([
      startReplica(pgUrl, upstream.url, { SYNC_FREQUENCY: '0', NODE_NAME: 'n-a' }),
      startReplica(pgUrl, upstream.url, { SYNC_FREQUENCY: '0', NODE_NAME: 'n-b' }),
    ]);
    open.push(a, b);
    await a.settled();
    await b.settled();
    const [after] = await query(pgUrl, `select remain_quota, used_quota from tokens where id = ${token.id}`);
    expect(Number(after.used_quota) - Number(token.used_quota)).toBe(amount);
    expect(Number(after.remain_quota)).toBe(Number(token.remain_quota) - amount);
    const [reservation] = await query(pgUrl, `select state, settled_amount from quota_reservations where id = 'stale-1'`);
    expect(reservation).toMatchObject({ state: 'settled' });
    expect(Number(reservation.settled_amount)).toBe(amount);
    await sleep(700);
    const logs = await query(pgUrl, `select count(*)::int as n from logs where usage_source = 'reserved'`);
    expect(logs[0].n).toBe(1);
  });

  it('two retention sweeps at once delete every old settled reservation exactly once and never an open one', async () => {
    await freshDatabase();
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const seed = await startReplica(pgUrl, upstream.url, { SYNC_FREQUENCY: '0' });
    await seed.gateway.close();
    const [token] = await query(pgUrl, `select id, user_id from tokens where name = 'carol-key'`);
    const old = Date.now() - 3 * 24 * 3600_000;
    await query(pgUrl, `insert into quota_reservations (id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at)
      select lpad(g::text, 12, '0'), ${token.id}, ${token.user_id}, 10, 'x', 'settled', 10, ${old}, ${old} from generate_series(1, 1700) g`);
    await query(pgUrl, `insert into quota_reservations (id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at) values ('000000000000-open', ${token.id}, ${token.user_id}, 10, 'x', 'reserved', null, ${old}, null)`);
    const one = await createDatabase(pgUrl);
    const two = await createDatabase(pgUrl);
    try {
      const results = await Promise.all([runRetention(one, Date.now(), 0), runRetention(two, Date.now(), 0)]);
      expect(results[0]!.settledReservations + results[1]!.settledReservations).toBe(1700);
    } finally {
      await one.close();
      await two.close();
    }
    const left = await query(pgUrl, `select state from quota_reservations`);
    expect(left).toEqual([{ state: 'reserved' }]);
  });

  it('three `relay serve` processes started at once on an empty PostgreSQL database all come up', async () => {
    await freshDatabase();
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const config = writeConfig(replicaConfig(upstream.url));
    const served: Served[] = [];
    try {
      for (let index = 0; index < 3; index += 1) served.push(spawnRelay(['serve'], { DATABASE_URL: pgUrl, RELAY_CONFIG: config, NODE_NAME: `mig-${index}` }, await findFreePort()));
      const outcomes = await Promise.allSettled(served.map((one) => one.ready()));
      expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? 'ready' : String(outcome.reason).slice(0, 400)))).toEqual(['ready', 'ready', 'ready']);
      for (const one of served) expect(await chatStatus(one.url)).toBe(200);
    } finally {
      for (const one of served) one.kill();
    }
  });

  it('`relay migrate` and `relay serve` at once on an empty PostgreSQL database both succeed', async () => {
    await freshDatabase();
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const config = writeConfig(replicaConfig(upstream.url));
    const server = spawnRelay(['serve'], { DATABASE_URL: pgUrl, RELAY_CONFIG: config, NODE_NAME: 'mig-serve' }, await findFreePort());
    try {
      const [migrated] = await Promise.all([runRelay(['migrate'], { DATABASE_URL: pgUrl }), server.ready()]);
      expect(migrated.code, migrated.output).toBe(0);
    } finally {
      server.kill();
    }
  });
});

describe.skipIf(!withPostgres)('relay serve --workers 2 on PostgreSQL', { timeout: 45_000 }, () => {
  let upstream: FakeOpenaiUpstream | undefined;
  let cluster: Served | undefined;
  let database: TestDatabase | undefined;
  let pgUrl = '';
  async function freshDatabase(): Promise<void> {
    database = await createTestDatabase('postgres');
    pgUrl = database.url;
  }
  afterEach(async () => {
    if (cluster !== undefined) {
      for (const pid of cluster.workerPids()) process.kill(pid, 'SIGKILL');
      cluster.kill('SIGKILL');
      await cluster.exited;
    }
    cluster = undefined;
    await upstream?.close();
    await database?.drop();
    database = undefined;
  });

  async function startCluster(options: Parameters<typeof startFakeOpenaiUpstream>[0] = {}): Promise<Served> {
    await freshDatabase();
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey], ...options });
    const config = writeConfig(replicaConfig(upstream.url));
    cluster = spawnRelay(['serve', '--workers', '2'], { DATABASE_URL: pgUrl, RELAY_CONFIG: config, NODE_NAME: 'pg-cluster', SYNC_FREQUENCY: '1', SHUTDOWN_TIMEOUT: '20' }, await findFreePort());
    await cluster.ready();
    // Both workers listening: wait until two children exist and each has answered.
    const both = await within(20_000, async () => (cluster!.output().match(/listening on/g) ?? []).length >= 2);
    expect(both, cluster.output()).toBeGreaterThanOrEqual(0);
    return cluster;
  }

  /** A streamed chat on a connection of its own (the primary hands connections round-robin). */
  async function openStream(url: string) {
    const dispatcher = new Agent();
    const response = await undiciFetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50, stream: true }),
      dispatcher,
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    return { status: response.status, reader, first: new TextDecoder().decode(first.value) };
  }

  it('both workers serve: requests on fresh connections are reserved under both worker names', async () => {
    const served = await startCluster();
    for (let index = 0; index < 6; index += 1) {
      const dispatcher = new Agent();
      const { default: OpenAI } = await import('openai');
      const sdk = new OpenAI({ apiKey: userKey, baseURL: `${served.url}/v1`, maxRetries: 0, fetchOptions: { dispatcher } as any });
      await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 });
      await dispatcher.close();
    }
    await sleep(500);
    const owners = await query(pgUrl, `select distinct owner from quota_reservations order by owner`);
    expect(owners.map((row) => row.owner)).toEqual(['pg-cluster#w1', 'pg-cluster#w2']);
  });

  it('a killed worker is replaced and its open reservations are settled at their reserved amount', async () => {
    const served = await startCluster();
    for (let index = 0; index < 4; index += 1) upstream!.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 60_000 });
    const streams = [];
    for (let index = 0; index < 4; index += 1) streams.push(await openStream(served.url));
    expect(streams.every((stream) => stream.status === 200)).toBe(true);
    const openRows = await query(pgUrl, `select id, owner, amount from quota_reservations where state = 'reserved'`);
    expect(new Set(openRows.map((row) => row.owner)).size).toBe(2);
    const before = served.workerPids();
    process.kill(before[0]!, 'SIGKILL');
    // The replacement starts and settles its previous incarnation's reservations.
    const took = await within(20_000, async () => {
      const rows = await query(pgUrl, `select owner, state, amount, settled_amount from quota_reservations`);
      const settledOwners = new Set(rows.filter((row) => row.state === 'settled').map((row) => row.owner));
      return settledOwners.size === 1 && rows.filter((row) => row.state === 'settled').every((row) => Number(row.settled_amount) === Number(row.amount));
    });
    expect(took, served.output()).toBeGreaterThanOrEqual(0);
    const after = served.workerPids();
    expect(after).toHaveLength(2);
    expect(after).not.toContain(before[0]);
    const rows = await query(pgUrl, `select owner, state from quota_reservations`);
    const settled = rows.filter((row) => row.state === 'settled');
    expect(settled).toHaveLength(2);
    expect(rows.filter((row) => row.state === 'reserved').every((row) => row.owner !== settled[0].owner)).toBe(true);
    for (const stream of streams) void stream.reader.cancel().catch(() => undefined);
  });

  it('SIGTERM to the primary drains requests in flight on both workers, settles them and exits 0', async () => {
    const served = await startCluster({ streamChunks: 8, chunkDelayMs: 250 });
    const streams = [];
    for (let index = 0; index < 4; index += 1) streams.push(await openStream(served.url));
    const owners = await query(pgUrl, `select distinct owner from quota_reservations where state = 'reserved'`);
    expect(owners).toHaveLength(2);
    served.kill('SIGTERM');
    const bodies = await Promise.all(
      streams.map(async (stream) => {
        let text = stream.first;
        for (;;) {
          const { value, done } = await stream.reader.read().catch(() => ({ value: undefined, done: true }));
          if (done) break;
          text += new TextDecoder().decode(value);
        }
        return text;
      }),
    );
    for (const body of bodies) expect(body).toContain('[DONE]');
    const exit = await Promise.race([served.exited, sleep(15_000).then(() => 'timeout' as const)]);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(served.workerPids()).toEqual([]);
    const rows = await query(pgUrl, `select state from quota_reservations`);
    expect(rows.every((row) => row.state === 'settled')).toBe(true);
    const logs = await query(pgUrl, `select count(*)::int as n from logs`);
    expect(logs[0].n).toBe(4);
  });
});
