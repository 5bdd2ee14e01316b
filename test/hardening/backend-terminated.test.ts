/**
 * A database connection that goes away while a gateway query runs on it (a database restart or failover,
 * an operator's pg_terminate_backend or KILL, a network cut) must fail that query, not the gateway process
 * with every stream it is serving (pg's Client emits 'error' for a checked-out client, which pg-pool does
 * not listen to; mysql2's pool hears only a connection's first error). Only this test's own database and
 * connections are touched on the shared servers: a network cut is made by a TCP proxy of the test's own
 * (test/support/database-proxy.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { createTestDatabase, serverUrls, type TestDatabase } from '../support/test-databases.js';
import { readReservations, waitFor, waitUntilDisconnected } from '../billing-e2e/read-billing-state.js';
import { findFreePort, spawnGatewayProcess, writeConfigFile, type GatewayProcess } from '../billing-e2e/spawn-gateway-process.js';
import { spendRequest } from '../billing-e2e/spend-request.js';
import { billingPrices, spenderKey, spenderTokenName, spenderUsername } from '../billing-e2e/start-billing-fixture.js';
import { startDatabaseProxy, type DatabaseProxy } from '../support/database-proxy.js';

const servers = [
  { dialect: 'postgres' as const, name: 'PostgreSQL', port: 5432, kill: 'pg_terminate_backend', available: serverUrls.postgres !== undefined },
  { dialect: 'mysql' as const, name: 'MySQL', port: 3306, kill: 'KILL', available: serverUrls.mysql !== undefined },
];

for (const server of servers) describe.skipIf(!server.available)(`a ${server.name} connection ended under a running query`, () => {
  let database: TestDatabase | undefined;
  let upstream: FakeOpenaiUpstream | undefined;
  let gateway: GatewayProcess | undefined;
  let inspector: DatabaseHandle | undefined;
  let proxy: DatabaseProxy | undefined;
  let removeConfig = () => undefined as void;

  afterEach(async () => {
    await gateway?.crash();
    await proxy?.close();
    await inspector?.close();
    await upstream?.close();
    if (database !== undefined) {
      if (server.dialect === 'postgres') await waitUntilDisconnected(database.url);
      await database.drop();
    }
    removeConfig();
  }, 30_000);

  for (const cut of [server.kill, 'a network cut (no FATAL message: the TCP connection just ends)'] as const) it(`fails that one request and keeps the process, and the stream it is serving, alive: ${cut}`, async () => {
    database = await createTestDatabase(server.dialect);
    upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'], promptTokens: 7, completionTokens: 10 });
    const config = writeConfigFile({
      prices: { 'gpt-4o-mini': billingPrices['gpt-4o-mini'] },
      channels: [{ name: 'channel-a', type: 'openai', base_url: upstream.url, key: 'sk-upstream-a', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
      users: [{ username: spenderUsername, role: 'user', group: 'default', quota: 1_000_000, enabled: true }],
      tokens: [{ name: spenderTokenName, user: spenderUsername, key: spenderKey, quota: 100_000, expires_at: 0, enabled: true }],
    });
    removeConfig = config.remove;
    const target = new URL(database.url);
    proxy = await startDatabaseProxy(target.hostname, Number(target.port || server.port));
    gateway = spawnGatewayProcess({ port: await findFreePort(), databaseUrl: proxy.urlFor(database.url), configPath: config.path, nodeName: 'terminated-node', env: { SYNC_FREQUENCY: '0', TASK_POLL_INTERVAL: '0' } });
    await gateway.waitUntilReady(50_000);
    inspector = await createDatabase(database.url);
    const db = inspector.db;
    const post = (body: unknown) =>
      fetch(`${gateway!.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    // A stream in flight: first chunk, then 4 s of silence, then the rest.
    upstream.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 4000 });
    const streaming = await post({ ...spendRequest, stream: true });
    expect(streaming.status).toBe(200);
    const reader = streaming.body!.getReader();
    await reader.read();

    // A second request's reserve waits on the token row this test holds locked...
    const blocker = await db.startTransaction().execute();
    await sql`select id from tokens where name = ${spenderTokenName} for update`.execute(blocker);
    const blocked = post(spendRequest).then(
      (response) => response.status,
      (error: unknown) => `fetch failed: ${String(error)}`,
    );
    const backend = await waitFor('the gateway connection waiting on the lock', async () => {
      if (server.dialect === 'mysql') {
        // (MariaDB's innodb_trx may not list the waiting transaction: the processlist shows its statement.)
        const { rows } = await sql<{ id: number }>`select id from information_schema.processlist where db = database() and command = 'Query' and info like '%update tokens%' and id <> connection_id()`.execute(db);
        return rows[0]?.id;
      }
      const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`.execute(db);
      return rows[0]?.pid;
    });
    // ...and its backend is terminated, as a restart or failover of the server would.
    if (cut === 'pg_terminate_backend') await sql`select pg_terminate_backend(${backend})`.execute(db);
    else if (cut === 'KILL') await sql.raw(`kill ${Number(backend)}`).execute(db);
    else {
      // The gateway reaches the server through the proxy: every one of its connections is cut at once.
      proxy.blackout();
      await sleep(200);
      proxy.restore();
    }
    await blocker.rollback().execute();
    const blockedStatus = await blocked;

    let text = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    } catch (error) {
      text += `\n<stream broke: ${String(error)}>`;
    }
    await sleep(500);
    const exited = await Promise.race([gateway.exited.then((exit) => `exited ${JSON.stringify(exit)}`), sleep(10).then(() => 'running')]);
    // An uncaught error prints its message and stack; the gateway's own lines (a settle queued) do not.
    const crashLine = gateway!.output().split('\n').find((line) => /^\w*Error\b|^\s+at /.test(line)) ?? null;

    // The request on the killed backend fails alone; the process lives on and finishes the other stream.
    expect({ exited, crashLine, blockedStatus, streamFinished: text.includes('[DONE]') }).toEqual({ exited: 'running', crashLine: null, blockedStatus: 500, streamFinished: true });
    const reservations = await waitFor('every reservation settled', async () => {
      const rows = await readReservations(db);
      return rows.length > 0 && rows.every((row) => row.state === 'settled') ? rows : undefined;
    });
    // The stream's at what it delivered; the failed request's reserve — which a network cut lets the
    // server finish and commit once the lock is free, after the gateway gave up on it — handed back whole.
    const streamId = streaming.headers.get('x-request-id');
    expect(reservations.map((row) => ({ stream: row.id === streamId, settledAmount: row.settledAmount })).sort((a, b) => Number(b.stream) - Number(a.stream))).toEqual([
      { stream: true, settledAmount: 86 },
      ...reservations.filter((row) => row.id !== streamId).map(() => ({ stream: false, settledAmount: 0 })),
    ]);
  }, 60_000);
});
