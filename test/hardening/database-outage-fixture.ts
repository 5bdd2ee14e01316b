import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import type { DialectName } from '../../src/storage/database-schema.js';
import { waitUntilDisconnected } from '../billing-e2e/read-billing-state.js';
import { spendRequest } from '../billing-e2e/spend-request.js';
import { billingPrices, spenderKey, spenderTokenName, spenderUsername } from '../billing-e2e/start-billing-fixture.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startDatabaseProxyFor, type DatabaseProxy } from '../support/database-proxy.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { createTestDatabase, type TestDatabase } from '../support/test-databases.js';

/** The spender's token grant and wallet. */
export const grant = 100_000;
export const wallet = 1_000_000;
/** What one spend costs with the fake's usage (7 prompt + 10 output tokens): 7 × 1.5 + 10 × 7.5 = 85.5 → 86 quota, far below the 761 reserved. */
export const deliveredCharge = 86;

/**
 * What the suites that take the database away from in-process gateways share (here and in test/replicas):
 * a new database on a shared server, the fake upstream of `channel-a` (7 prompt + 10 output tokens), an
 * inspector straight on the database, and gateways of `channel-a` and the spender, each reaching the
 * database through a TCP proxy of its own (test/support/database-proxy.ts: the shared servers are never
 * touched) or straight.
 */
export interface DatabaseOutageFixture {
  database: TestDatabase;
  upstream: FakeOpenaiUpstream;
  inspector: DatabaseHandle;
  /** A proxy in front of the database: `proxy.urlFor(fixture.database.url)` is the gateway's database URL. */
  startProxy(): Promise<DatabaseProxy>;
  /** A gateway with no background database traffic of its own (while a proxy plays tricks), under `nodeName`. */
  startGateway(options: { nodeName: string; databaseUrl: string; env?: Record<string, string> }): Promise<TestGateway>;
  /** Closes a gateway now (the fixture's `close` leaves it): resolves when its close returned. */
  closeGateway(gateway: TestGateway): Promise<void>;
  /** The suite's `afterEach`: every proxy back to a pipe, the gateways closed, the rest closed, the database dropped. */
  close(): Promise<void>;
}

export async function startDatabaseOutageFixture(dialect: DialectName): Promise<DatabaseOutageFixture> {
  const database = await createTestDatabase(dialect);
  const upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'], promptTokens: 7, completionTokens: 10 });
  const inspector = await createDatabase(database.url);
  const proxies: DatabaseProxy[] = [];
  const gateways = new Set<TestGateway>();
  return {
    database,
    upstream,
    inspector,
    async startProxy() {
      const proxy = await startDatabaseProxyFor(database.url);
      proxies.push(proxy);
      return proxy;
    },
    async startGateway({ nodeName, databaseUrl, env = {} }) {
      const gateway = await startTestGateway({
        databaseUrl,
        env: { SYNC_FREQUENCY: '0', TASK_POLL_INTERVAL: '0', NODE_NAME: nodeName, ...env },
        config: {
          prices: { 'gpt-4o-mini': billingPrices['gpt-4o-mini'] },
          channels: [{ name: 'channel-a', type: 'openai', base_url: upstream.url, key: 'sk-upstream-a', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
          users: [{ username: spenderUsername, role: 'user', group: 'default', quota: wallet, enabled: true }],
          tokens: [{ name: spenderTokenName, user: spenderUsername, key: spenderKey, quota: grant, expires_at: 0, enabled: true }],
        },
      });
      gateways.add(gateway);
      return gateway;
    },
    async closeGateway(gateway) {
      gateways.delete(gateway);
      await gateway.gateway.close();
    },
    async close() {
      for (const proxy of proxies) proxy.restore();
      for (const gateway of gateways) await gateway.gateway.close().catch(() => undefined);
      gateways.clear();
      await inspector.close();
      for (const proxy of proxies.splice(0)) await proxy.close();
      await upstream.close();
      if (dialect === 'postgres') await waitUntilDisconnected(database.url);
      await database.drop();
    },
  };
}

/** A streamed spend on `gateway` (answered 200), read up to its first chunk: the reader of the rest. */
export async function openSpendStream(gateway: TestGateway): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...spendRequest, stream: true, stream_options: { include_usage: true } }),
  });
  if (response.status !== 200) throw new Error(`the spend stream was answered ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  await reader.read();
  return reader;
}

/** The rest of a stream, as text. */
export async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}
