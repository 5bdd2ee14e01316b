import OpenAI from 'openai';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import type { DialectName } from '../../src/storage/database-schema.js';
import type { LogEntry } from '../../src/storage/logs-repository.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream, type FakeOptions } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

export const clientKey = `sk-${'c'.repeat(48)}`;
export const upstreamKeyA = 'sk-upstream-key-a';
export const upstreamKeyB = 'sk-upstream-key-b';

export interface RelayFixture {
  gateway: TestGateway;
  upstreamA: FakeOpenaiUpstream;
  upstreamB: FakeOpenaiUpstream;
  client: OpenAI;
  /** Flushes the batched log writer, then reads every log row (newest first). */
  logs(): Promise<LogEntry[]>;
  /** The token's balance as stored. */
  token(): Promise<{ remain_quota: number; used_quota: number }>;
  close(): Promise<void>;
}

export interface RelayFixtureOptions {
  dialect?: DialectName;
  /** Config merged over the default (two channels A priority 10, B priority 0, one token). */
  config?: Partial<ConfigFile>;
  tokenQuota?: number;
  upstreamOptions?: Partial<FakeOptions>;
  env?: Record<string, string>;
}

export const prices = {
  'gpt-4o-mini': { input: 0.15, output: 0.6, cache_read: 0.075 },
  'alias-model': { input: 1, output: 2 },
  'text-embedding-3-small': { input: 0.02 },
  'omni-moderation-latest': { per_call: 0.001 },
  'rerank-v1': { per_call: 0.002 },
  'gpt-3.5-turbo-instruct': { input: 1.5, output: 2 },
};

/** Two fake OpenAI upstreams (A preferred, B fallback) behind a real gateway, and an SDK client. */
export async function startRelayFixture(options: RelayFixtureOptions = {}): Promise<RelayFixture> {
  const upstreamA = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKeyA], ...options.upstreamOptions });
  const upstreamB = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKeyB], ...options.upstreamOptions });
  const models = Object.keys(prices);
  const gateway = await startTestGateway({
    dialect: options.dialect ?? 'sqlite',
    env: options.env ?? {},
    config: {
      prices,
      channels: [
        { name: 'channel-a', type: 'openai', base_url: upstreamA.url, key: upstreamKeyA, models, groups: ['default'], priority: 10, weight: 1, model_mapping: { 'alias-model': 'gpt-4o-mini' }, enabled: true, auto_disable: true, settings: {} },
        { name: 'channel-b', type: 'openai', base_url: upstreamB.url, key: upstreamKeyB, models, groups: ['default'], priority: 0, weight: 1, model_mapping: { 'alias-model': 'gpt-4o-mini' }, enabled: true, auto_disable: true, settings: {} },
      ],
      users: [{ username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: [{ name: 'alice-key', user: 'alice', key: clientKey, quota: options.tokenQuota ?? 10_000_000, expires_at: 0, enabled: true }],
      ...options.config,
    },
  });
  const client = new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const { db } = gateway.gateway.services.database;
  return {
    gateway,
    upstreamA,
    upstreamB,
    client,
    async logs() {
      await gateway.settled();
      const page = await gateway.gateway.services.repositories.logs.list({}, { page: 1, pageSize: 100 });
      return page.items;
    },
    async token() {
      await gateway.settled();
      return db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('name', '=', 'alice-key').executeTakeFirstOrThrow();
    },
    async close() {
      await gateway.close();
      await upstreamA.close();
      await upstreamB.close();
    },
  };
}
