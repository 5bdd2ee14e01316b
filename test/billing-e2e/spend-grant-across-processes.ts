import OpenAI from 'openai';
import { expect } from 'vitest';
import type { ConfigToken, ConfigUser } from '../../src/config/config-file-schema.js';
import type { DatabaseHandle } from '../../src/storage/create-database.js';
import type { Database, DialectName } from '../../src/storage/database-schema.js';
import type { FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import type { OwnRedis } from '../support/own-redis.js';
import type { TestDatabase } from '../support/test-databases.js';
import { readBalances, readReservations, waitFor, waitForLogRows, waitUntilDisconnected } from './read-billing-state.js';
import { writeConfigFile, type GatewayProcess } from './spawn-gateway-process.js';
import { insufficientQuotaEnvelope, sendSpendRequest, spendReservation } from './spend-request.js';
import { billingPrices, spenderKey, spenderTokenName, spenderUsername } from './start-billing-fixture.js';

/** A token grant that five reservations of the spend request fit, and a sixth does not. */
export const fiveSpendsGrant = 5 * spendReservation + 400;

/**
 * The config file the multi-process suites give their `relay serve` processes: `channel-a`, one OpenAI channel
 * (key `sk-upstream-a`) at `upstreamUrl` serving gpt-4o-mini at its billing price; the spender with `wallet` in
 * its user, its token holding `grant`; then any other users and tokens, and `admin_key` if given.
 */
export function writeSpenderConfig(upstreamUrl: string, options: { grant: number; wallet: number; adminKey?: string; users?: ConfigUser[]; tokens?: ConfigToken[] }): { path: string; remove(): void } {
  return writeConfigFile({
    ...(options.adminKey === undefined ? {} : { admin_key: options.adminKey }),
    prices: { 'gpt-4o-mini': billingPrices['gpt-4o-mini'] },
    channels: [{ name: 'channel-a', type: 'openai', base_url: upstreamUrl, key: 'sk-upstream-a', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
    users: [{ username: spenderUsername, role: 'user', group: 'default', quota: options.wallet, enabled: true }, ...(options.users ?? [])],
    tokens: [{ name: spenderTokenName, user: spenderUsername, key: spenderKey, quota: options.grant, expires_at: 0, enabled: true }, ...(options.tokens ?? [])],
  });
}

/**
 * The multi-process suites' `afterAll`: ends every process (`crash`: SIGKILL; `stop`: SIGTERM, then SIGKILL),
 * closes the inspecting connection, the suite's own Redis and the upstream, drops the database and removes the
 * config file. Anything `beforeAll` did not get to start is left out.
 */
export async function tearDownProcesses(options: { processes: GatewayProcess[]; end: 'crash' | 'stop'; dialect: DialectName; database: TestDatabase | undefined; inspector: DatabaseHandle | undefined; upstream: FakeOpenaiUpstream | undefined; ownRedis?: OwnRedis | undefined; removeConfig: () => void }): Promise<void> {
  await Promise.all(options.processes.map((gateway) => (options.end === 'crash' ? gateway.crash() : gateway.stop())));
  await options.inspector?.close();
  await options.ownRedis?.close();
  await options.upstream?.close();
  if (options.database !== undefined) {
    // PostgreSQL refuses to drop a database while an ended process's connections are still closing.
    if (options.dialect === 'postgres') await waitUntilDisconnected(options.database.url);
    await options.database.drop();
  }
  options.removeConfig();
}

/**
 * The proof that several gateway processes never spend past a grant together: 30 spend requests at once
 * (every other one streamed), spread round-robin over `processes`, against the spender token holding
 * `fiveSpendsGrant` (its user 1,000,000,000). Exactly 5 are served, 25 refused with 402 and no upstream
 * call; then the books agree to the unit: reservations, log rows, token, user and channel counters.
 */
export async function expectFiveOfThirtyServed(options: { processes: GatewayProcess[]; nodeNames: string[]; upstream: FakeOpenaiUpstream; db: Database; channelName: string }): Promise<void> {
  const { processes, nodeNames, upstream, db } = options;
  const clients = processes.map((gateway) => new OpenAI({ apiKey: spenderKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 }));
  const before = upstream.requests.length;
  const outcomes = await Promise.all(Array.from({ length: 30 }, (_, index) => sendSpendRequest(clients[index % clients.length]!, index % 2 === 1)));

  const served = outcomes.filter((outcome) => outcome.kind === 'served');
  const refused = outcomes.filter((outcome) => outcome.kind === 'refused');
  expect(served).toHaveLength(5);
  expect(refused).toHaveLength(25);
  for (const outcome of refused) {
    expect(outcome.kind === 'refused' && outcome.status).toBe(402);
    expect(outcome.kind === 'refused' && outcome.error).toEqual(insufficientQuotaEnvelope('this API key'));
  }
  expect(upstream.requests.length - before).toBe(5);

  // Each process settles after its client has the answer, and writes its log rows in batches.
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
  expect(balances.token.used + balances.token.remain).toBe(fiveSpendsGrant);
  expect(balances.user.used + balances.user.quota).toBe(1_000_000_000);
  expect(balances.user.requests).toBe(5);
  const channel = await db.selectFrom('channels').select(['used_quota', 'request_count']).where('name', '=', options.channelName).executeTakeFirstOrThrow();
  expect({ used: Number(channel.used_quota), requests: Number(channel.request_count) }).toEqual({ used: 5 * 761, requests: 5 });
  expect(logs.quota).toBe(balances.token.used);
}
