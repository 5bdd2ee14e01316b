/**
 * The real gateway in front of fake OpenAI video upstreams (test/fakes/fake-video-upstream.ts) for spec
 * §4.9: `sora` behind the main channel (two keys, rotated; `sora-alias` mapped to `sora-2`), `spare`
 * behind a lower-priority channel serving `sora-2` only (failover). The poll loop does not run on its own
 * (TASK_POLL_INTERVAL=0): tests call `poll()`. The clock is the test's. Expected charges are computed here
 * from docs/behaviour.md "Video", never read from the gateway.
 */
import type { Selectable } from 'kysely';
import OpenAI from 'openai';
import type { DialectName, LogsTable, TasksTable } from '../../src/storage/database-schema.js';
import type { PassSummary } from '../../src/tasks/task-engine.js';
import { startFakeVideoUpstream, type FakeVideoUpstream } from '../fakes/fake-video-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/** Prices in thousandths of the site currency (per second of clip, or per task). */
export const priceMilli = {
  'sora-2': { perSecond: 100 },
  'sora-2-pro': { perSecond: 300 },
  'sora-2-pro@1792x1024': { perSecond: 500 },
  'sora-alias': { perCall: 250 },
} as const;

const quotaPerUnit = 500_000;

/** docs/behaviour.md "Video": per second × seconds, or per task; exact (these prices make whole units). */
export function expectedCharge(model: keyof typeof priceMilli, seconds: number): number {
  const price = priceMilli[model];
  return 'perSecond' in price ? (price.perSecond * seconds * quotaPerUnit) / 1000 : (price.perCall * quotaPerUnit) / 1000;
}

export const clientKey = `sk-${'v'.repeat(48)}`;
export const otherUserKey = `sk-${'o'.repeat(48)}`;
/** A key whose own quota covers one 4-second sora-2 clip and no more. */
export const smallKey = `sk-${'s'.repeat(48)}`;
export const smallKeyQuota = expectedCharge('sora-2', 4);
export const upstreamKeys = ['sk-up-sora-a', 'sk-up-sora-b'];

/**
 * The database of the single-database suites: PostgreSQL when the run has one (it is the strictest: NUL
 * in text, row locks under concurrency), else SQLite. task-money-databases.test.ts runs on all three.
 */
export function preferredDialect(): DialectName {
  return process.env.RELAY_TEST_POSTGRES_URL === undefined ? 'sqlite' : 'postgres';
}

export type LogEntry = Selectable<LogsTable>;
export type TaskEntry = Selectable<TasksTable>;

export interface VideosFixture {
  gateway: TestGateway;
  sora: FakeVideoUpstream;
  spare: FakeVideoUpstream;
  client: OpenAI;
  clientWith(key: string): OpenAI;
  /** One pass of the poll loop, now. */
  poll(): Promise<PassSummary>;
  /** Moves the gateway's clock. */
  advanceClock(ms: number): void;
  now(): number;
  tokenUsed(name?: string): Promise<number>;
  tokenRemaining(name: string): Promise<number>;
  /** Runs `run` and reads what it charged the main key. */
  charged<T>(run: () => Promise<T>): Promise<{ result: T; charge: number }>;
  task(publicId: string): Promise<TaskEntry | undefined>;
  taskCount(): Promise<number>;
  logs(): Promise<LogEntry[]>;
  fetch(path: string, init?: RequestInit & { key?: string }): Promise<Response>;
  close(): Promise<void>;
}

/** `databaseUrl`: an existing database (the caller drops it), e.g. reached through test/support/database-proxy.ts. */
export async function startVideosFixture(options: { dialect?: DialectName; env?: Record<string, string>; databaseUrl?: string } = {}): Promise<VideosFixture> {
  const [sora, spare] = await Promise.all([startFakeVideoUpstream({ expectedKeys: upstreamKeys }), startFakeVideoUpstream({ expectedKeys: ['sk-up-spare'] })]);
  let clock = Date.now();
  const channel = { type: 'openai' as const, groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {} };
  const gateway = await startTestGateway({
    dialect: options.dialect ?? 'sqlite',
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    now: () => clock,
    env: { TASK_POLL_INTERVAL: '0', ...options.env },
    config: {
      retry_times: 1,
      prices: Object.fromEntries(Object.entries(priceMilli).map(([model, price]) => [model, 'perSecond' in price ? { per_second: price.perSecond / 1000 } : { per_call: price.perCall / 1000 }])),
      channels: [
        { ...channel, name: 'sora-up', base_url: sora.url, keys: upstreamKeys, models: ['sora-2', 'sora-2-pro', 'sora-alias', 'sora-unpriced'], priority: 10, model_mapping: { 'sora-alias': 'sora-2' } },
        { ...channel, name: 'spare-up', base_url: spare.url, key: 'sk-up-spare', models: ['sora-2'], priority: 0, model_mapping: {} },
      ],
      users: [
        { username: 'director', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true },
        { username: 'other', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true },
      ],
      tokens: [
        { name: 'director-key', user: 'director', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true },
        { name: 'small-key', user: 'director', key: smallKey, quota: smallKeyQuota, expires_at: 0, enabled: true },
        { name: 'other-key', user: 'other', key: otherUserKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true },
      ],
    },
  });
  const { db } = gateway.gateway.services.database;
  const clientWith = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const tokenRow = async (name: string) => {
    await gateway.settled();
    return db.selectFrom('tokens').select(['used_quota', 'remain_quota']).where('name', '=', name).executeTakeFirstOrThrow();
  };
  const tokenUsed = async (name = 'director-key') => Number((await tokenRow(name)).used_quota);
  return {
    gateway,
    sora,
    spare,
    client: clientWith(clientKey),
    clientWith,
    poll: async () => {
      const summary = await gateway.gateway.services.taskEngine.pollOnce();
      await gateway.settled();
      return summary;
    },
    advanceClock: (ms) => {
      clock += ms;
    },
    now: () => clock,
    tokenUsed,
    tokenRemaining: async (name) => Number((await tokenRow(name)).remain_quota),
    async charged(run) {
      const before = await tokenUsed();
      const result = await run();
      return { result, charge: (await tokenUsed()) - before };
    },
    task: (publicId) => db.selectFrom('tasks').selectAll().where('public_id', '=', publicId).executeTakeFirst(),
    taskCount: async () => Number((await db.selectFrom('tasks').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count),
    logs: async () => {
      await gateway.settled();
      return db.selectFrom('logs').selectAll().orderBy('id').execute();
    },
    fetch: (path, init = {}) => {
      const { key, ...rest } = init;
      return fetch(`${gateway.url}${path}`, { ...rest, headers: { authorization: `Bearer ${key ?? clientKey}`, ...(rest.headers as Record<string, string> | undefined) } });
    },
    async close() {
      await gateway.close();
      await Promise.all([sora.close(), spare.close()]);
    },
  };
}
