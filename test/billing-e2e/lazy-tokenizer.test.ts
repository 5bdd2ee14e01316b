import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { createTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { readReservations, waitForLogRows } from './read-billing-state.js';
import { findFreePort, spawnGatewayProcess, writeConfigFile, type GatewayProcess } from './spawn-gateway-process.js';
import { billingPrices, spenderKey, spenderTokenName, spenderUsername } from './start-billing-fixture.js';

/**
 * docs/behaviour.md "Billing": admission sizes the reservation from an estimate; the exact tokenizer
 * (gpt-tokenizer, ~50 MB resident) is loaded only when a request must be billed on a local count. A real
 * `relay serve` child process records, through a loader hook, every module it resolves from gpt-tokenizer
 * (and from fastify, as a check that the hook sees the gateway's imports at all).
 */
const recorder = fileURLToPath(new URL('../support/record-module-loads.mjs', import.meta.url));
const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say hello' }], max_tokens: 100 };

describe('the exact tokenizer in a gateway process', () => {
  let database: TestDatabase;
  let inspector: DatabaseHandle;
  let upstream: FakeOpenaiUpstream;
  let gateway: GatewayProcess;
  let client: OpenAI;
  let removeConfig = () => undefined as void;
  const scratch = mkdtempSync(join(tmpdir(), 'relay-module-log-'));
  const moduleLog = join(scratch, 'loaded.txt');
  const loaded = (packageName: string) => existsSync(moduleLog) && readFileSync(moduleLog, 'utf8').includes(`/node_modules/${packageName}/`);

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'], promptTokens: 17, completionTokens: 9 });
    const config = writeConfigFile({
      prices: { 'gpt-4o-mini': billingPrices['gpt-4o-mini'] },
      channels: [{ name: 'channel-a', type: 'openai', base_url: upstream.url, key: 'sk-upstream-a', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
      users: [{ username: spenderUsername, role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: [{ name: spenderTokenName, user: spenderUsername, key: spenderKey, quota: 10_000_000, expires_at: 0, enabled: true }],
    });
    removeConfig = config.remove;
    gateway = spawnGatewayProcess({
      port: await findFreePort(),
      databaseUrl: database.url,
      configPath: config.path,
      nodeName: 'lazy-tokenizer',
      nodeArgs: ['--import', recorder],
      env: { RELAY_TEST_MODULE_LOG: moduleLog, RELAY_TEST_MODULE_PACKAGES: 'gpt-tokenizer,fastify' },
    });
    await gateway.waitUntilReady(50_000);
    inspector = await createDatabase(database.url);
    client = new OpenAI({ apiKey: spenderKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await inspector?.close();
    await upstream?.close();
    await database?.drop();
    removeConfig();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('records the packages it loads (else the absence below would prove nothing)', () => {
    expect(loaded('fastify')).toBe(true);
  });

  it('is not loaded by chat requests whose upstream reports usage, streamed or not', async () => {
    const completion = await client.chat.completions.create(chat);
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    let streamed = '';
    for await (const chunk of await client.chat.completions.create({ ...chat, stream: true })) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe('Hello from the fake upstream!');

    // Settled and logged at the upstream's usage (17 in, 9 out), after which nothing else is counted.
    await waitForLogRows(inspector.db, 2);
    const rows = await inspector.db.selectFrom('logs').selectAll().orderBy('id').execute();
    expect(rows.map((row) => [row.usage_source, row.input_tokens, row.output_tokens])).toEqual([
      ['upstream', 17, 9],
      ['upstream', 17, 9],
    ]);
    expect(loaded('gpt-tokenizer')).toBe(false);
  });

  it('is loaded to bill a request whose upstream reports no usage at the exact local count', async () => {
    upstream.setOptions({ usageInStream: false });
    let streamed = '';
    for await (const chunk of await client.chat.completions.create({ ...chat, stream: true })) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe('Hello from the fake upstream!');

    await waitForLogRows(inspector.db, 3);
    const row = await inspector.db.selectFrom('logs').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    // Exact o200k counts: 'Say hello' is 2 tokens + 4 framing; 'Hello from the fake upstream!' is 6.
    // 6 × 1.5 + 6 × 7.5 = 54 quota (billing-rules.test.ts checks these counts against the tokenizer).
    expect(row).toMatchObject({ usage_source: 'local', input_tokens: 6, output_tokens: 6, quota: 54 });
    // The reservation was sized from the estimate: 'Say' 1 + 'hello' ⌈5/3⌉ = 2 → 3 text tokens + 4
    // framing = 7; 7 × 1.5 + 100 × 7.5 = 760.5 → 761.
    const reservation = (await readReservations(inspector.db)).find((candidate) => candidate.id === row.request_id);
    expect(reservation).toMatchObject({ amount: 761, state: 'settled', settledAmount: 54 });
    expect(loaded('gpt-tokenizer')).toBe(true);
  });

  it('answers Gemini :countTokens with the exact count, not the estimate (for a model its key may use; a Gemini client reaches any channel)', async () => {
    const response = await fetch(`${gateway.url}/v1beta/models/gpt-4o-mini:countTokens`, {
      method: 'POST',
      headers: { 'x-goog-api-key': spenderKey, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] }),
    });
    expect(response.status).toBe(200);
    // 2 text tokens + 4 framing (the estimate would say 7).
    expect(await response.json()).toEqual({ totalTokens: 6 });
  });
});
