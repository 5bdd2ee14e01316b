import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRedisKeyPrefix } from '../../src/limits/redis-rate-limiter.js';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startOwnRedis, type OwnRedis } from '../support/own-redis.js';
import { createTestDatabase, serverUrls, type TestDatabase } from '../support/test-databases.js';
import { waitFor } from './read-billing-state.js';
import { findFreePort, spawnGatewayProcess, type GatewayProcess } from './spawn-gateway-process.js';
import { expectFiveOfThirtyServed, fiveSpendsGrant, tearDownProcesses, writeSpenderConfig } from './spend-grant-across-processes.js';
import { sendSpendRequest, usageAtReservation, type SpendOutcome } from './spend-request.js';

const nodeNames = ['replica-a', 'replica-b', 'replica-c'];
const rpmKey = `sk-${'r'.repeat(48)}`;
const rpm = 10;

const databases = [
  { dialect: 'postgres', name: 'PostgreSQL', available: serverUrls.postgres !== undefined },
  { dialect: 'mysql', name: 'MySQL', available: serverUrls.mysql !== undefined },
] as const;

for (const { dialect, name, available } of databases) {
  describe.skipIf(!available || serverUrls.redis === undefined)(`three gateway processes sharing ${name} and Redis`, () => {
    const processes: GatewayProcess[] = [];
    let upstream: FakeOpenaiUpstream;
    let database: TestDatabase | undefined;
    let inspector: DatabaseHandle | undefined;
    let redis: Redis | undefined;
    let ownRedis: OwnRedis | undefined;
    let removeConfig = () => undefined as void;
    let rateKey = '';

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'], ...usageAtReservation, chunkDelayMs: 10 });
      const config = writeSpenderConfig(upstream.url, {
        grant: fiveSpendsGrant,
        wallet: 1_000_000_000,
        adminKey: 'sk-admin-three-processes',
        users: [{ username: 'rate-limited', role: 'user', group: 'default', enabled: true }],
        tokens: [{ name: 'rpm-key', user: 'rate-limited', key: rpmKey, unlimited_quota: true, rate_limit: { rpm }, expires_at: 0, enabled: true }],
      });
      removeConfig = config.remove;
      // A redis-server of its own: a shared one's windows are keyed by token id, which every fresh database
      // numbers from 1, so a copy of this suite running beside it (another checkout) counted into the same window.
      ownRedis = await startOwnRedis();
      const redisUrl = new URL(ownRedis.url);
      redis = new Redis(redisUrl.toString(), { maxRetriesPerRequest: 2 });

      for (const nodeName of nodeNames) {
        processes.push(spawnGatewayProcess({ port: await findFreePort(), databaseUrl: database.url, configPath: config.path, nodeName, redisUrl: redisUrl.toString() }));
      }
      // All three start at once on the empty database, as replicas of one deployment do.
      await Promise.all(processes.map((gateway) => gateway.waitUntilReady(50_000)));
      inspector = await createDatabase(database.url);
      const rpmToken = await inspector.db.selectFrom('tokens').select('id').where('name', '=', 'rpm-key').executeTakeFirstOrThrow();
      rateKey = `${defaultRedisKeyPrefix}token:${rpmToken.id}:rpm`;
    }, 60_000);

    afterAll(async () => {
      redis?.disconnect();
      await tearDownProcesses({ processes, end: 'stop', dialect, database, inspector, upstream, ownRedis, removeConfig });
    }, 30_000);


    /** `count` requests at once, spread round-robin over the three processes. */
    function sendSpread(apiKey: string, count: number, stream: (index: number) => boolean): Promise<SpendOutcome[]> {
      const clients = processes.map((gateway) => new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 }));
      return Promise.all(Array.from({ length: count }, (_, index) => sendSpendRequest(clients[index % clients.length]!, stream(index))));
    }

    it('never spends past the grant, together: 5 of 30 served, the rest 402 with no upstream call', async () => {
      await expectFiveOfThirtyServed({ processes, nodeNames, upstream, db: inspector!.db, channelName: 'channel-a' });
    }, 30_000);

    it(`holds a token's limit of ${rpm} requests per minute across the three: 10 of 30 pass, the rest 429`, async () => {
      const before = upstream.requests.length;
      const outcomes = await sendSpread(rpmKey, 30, () => false);

      const served = outcomes.filter((outcome) => outcome.kind === 'served');
      const limited = outcomes.filter((outcome): outcome is Extract<SpendOutcome, { kind: 'refused' }> => outcome.kind === 'refused');
      expect(served).toHaveLength(rpm);
      expect(limited).toHaveLength(30 - rpm);
      expect(upstream.requests.length - before).toBe(rpm);
      for (const outcome of limited) {
        expect(outcome.status).toBe(429);
        expect(outcome.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
        const retryAfter = Number(outcome.headers?.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(outcome.headers?.get('x-ratelimit-limit-requests')).toBe(String(rpm));
        expect(outcome.headers?.get('x-ratelimit-remaining-requests')).toBe('0');
        expect(outcome.headers?.get('x-ratelimit-reset-requests')).toMatch(/^(\d+s|1m0s)$/);
      }
      // The window lives in Redis, shared: one count for the three processes.
      expect(Number(await redis!.get(rateKey))).toBe(rpm);
      const logs = await waitFor('a log row for each request let through', async () => {
        const rows = await inspector!.db.selectFrom('logs').select(['status', 'quota']).where('token_name', '=', 'rpm-key').execute();
        return rows.length >= rpm ? rows : undefined;
      });
      expect(logs.map((row) => Number(row.status))).toEqual(Array.from({ length: rpm }, () => 200));
    }, 30_000);
  });
}
