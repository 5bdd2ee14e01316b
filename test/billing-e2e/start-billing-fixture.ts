import OpenAI from 'openai';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import type { Database, DialectName } from '../../src/storage/database-schema.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream, type FakeOptions } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { createTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { waitUntilDisconnected } from './read-billing-state.js';

export const spenderKey = `sk-${'b'.repeat(48)}`;
export const spenderTokenName = 'spender-key';
export const spenderUsername = 'spender';

/** Prices of the billing proofs, chosen so that charges are large enough to tell rounding apart. */
export const billingPrices = {
  // Per 1M tokens: 1.5 quota per input token, 7.5 per output token, 0.15 per cache read (quota_per_unit 500 000).
  'gpt-4o-mini': { input: 3, output: 15, cache_read: 0.3 },
  // 0.75 quota per input token, 1 per output token.
  'gpt-3.5-turbo-instruct': { input: 1.5, output: 2 },
} as const;

export interface BillingFixtureOptions {
  dialect: DialectName;
  /** The spender token's grant; undefined = unlimited. */
  tokenQuota: number | undefined;
  /** The spender user's wallet; undefined = unlimited. */
  userQuota: number | undefined;
  upstreamOptions?: Partial<FakeOptions>;
  env?: Record<string, string>;
  config?: Partial<ConfigFile>;
}

export interface BillingFixture {
  gateway: TestGateway;
  db: Database;
  databaseUrl: string;
  /** Preferred channel (priority 10) and fallback (priority 0), both serving every priced model. */
  upstreamA: FakeOpenaiUpstream;
  upstreamB: FakeOpenaiUpstream;
  client: OpenAI;
  /** Every request any fake upstream received. */
  upstreamRequestCount(): number;
  /** Stops the gateway cleanly (draining its log writer) but keeps the database for inspection. */
  stopGateway(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The real gateway in this process on a database of its own, two fake OpenAI upstreams, one user with
 * one token whose balances the test chooses, and an official `openai` SDK client using that token.
 */
export async function startBillingFixture(options: BillingFixtureOptions): Promise<BillingFixture> {
  const database: TestDatabase = await createTestDatabase(options.dialect);
  const upstreamA = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'], ...options.upstreamOptions });
  const upstreamB = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-b'], ...options.upstreamOptions });
  const models = Object.keys(billingPrices);
  const channel = (name: string, url: string, key: string, priority: number) => ({
    name, type: 'openai' as const, base_url: url, key, models, groups: ['default'], priority, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {},
  });
  const gateway = await startTestGateway({
    databaseUrl: database.url,
    env: options.env ?? {},
    config: {
      prices: billingPrices,
      channels: [channel('channel-a', upstreamA.url, 'sk-upstream-a', 10), channel('channel-b', upstreamB.url, 'sk-upstream-b', 0)],
      users: [{ username: spenderUsername, role: 'user', group: 'default', ...(options.userQuota === undefined ? {} : { quota: options.userQuota }), enabled: true }],
      tokens: [
        {
          name: spenderTokenName, user: spenderUsername, key: spenderKey, expires_at: 0, enabled: true,
          ...(options.tokenQuota === undefined ? { unlimited_quota: true } : { quota: options.tokenQuota }),
        },
      ],
      ...options.config,
    },
  });
  const client = new OpenAI({ apiKey: spenderKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 });
  let gatewayStopped: Promise<void> | undefined;
  const stopGateway = () => (gatewayStopped ??= gateway.gateway.close());
  return {
    gateway,
    db: gateway.gateway.services.database.db,
    databaseUrl: database.url,
    upstreamA,
    upstreamB,
    client,
    upstreamRequestCount: () => upstreamA.requests.length + upstreamB.requests.length,
    stopGateway,
    async close() {
      await stopGateway();
      await upstreamA.close();
      await upstreamB.close();
      if (options.dialect === 'postgres') await waitUntilDisconnected(database.url);
      await database.drop();
    },
  };
}
