/**
 * From the assets audit: two gateways sharing one database, on every database. An asset created through one
 * is read through the other by its owner, and refused (404, no upstream call) to anyone else; the
 * ownership row is written by each dialect's insert.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeArkAssetUpstream, type FakeArkAssetUpstream } from '../fakes/fake-ark-asset-upstream.js';
import { aliceKey, arkKey, assetOwnersConfig, bobKey, statusOf } from './asset-owners-fixture.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects, createTestDatabase, type TestDatabase } from '../support/test-databases.js';

const createBody = { url: 'https://example.com/cat.jpg', name: 'cat.jpg', assetType: 'Image' };

for (const { dialect, available } of allDialects) {
describe.skipIf(!available)(`asset ownership shared by two gateways on ${dialect}`, () => {
  let upstream: FakeArkAssetUpstream;
  let database: TestDatabase;
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    // Ids unique per run.
    upstream = await startFakeArkAssetUpstream({ expectedKeys: [arkKey], idPrefix: `asset-20260327164915-r${Date.now().toString(36)}` });
    database = await createTestDatabase(dialect);
    a = await startTestGateway({ config: assetOwnersConfig(upstream.url), databaseUrl: database.url });
    b = await startTestGateway({ config: assetOwnersConfig(upstream.url), databaseUrl: database.url });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    await upstream?.close();
  });

  it('created on A, read on B by its owner; refused on B (and A) to another caller without an upstream call', async () => {
    const id = (await new OpenAI({ apiKey: aliceKey, baseURL: a.url, maxRetries: 0 }).post<{ Result: { Id: string } }>('/api/asset/createMedia', { body: createBody })).Result.Id;
    upstream.requests.length = 0;
    const onB = await new OpenAI({ apiKey: aliceKey, baseURL: b.url, maxRetries: 0 }).get<{ Result: { Id: string } }>('/api/asset/get', { query: { id } });
    expect(onB.Result.Id).toBe(id);
    expect(upstream.requests).toHaveLength(1);
    upstream.requests.length = 0;
    expect(await statusOf(new OpenAI({ apiKey: bobKey, baseURL: b.url, maxRetries: 0 }).get('/api/asset/get', { query: { id } }))).toBe(404);
    expect(await statusOf(new OpenAI({ apiKey: bobKey, baseURL: a.url, maxRetries: 0 }).get('/api/asset/get', { query: { id } }))).toBe(404);
    expect(upstream.requests).toHaveLength(0);
  });

  it('the same holds for an asset read on B immediately after the create on A (no race on the unawaited write)', async () => {
    for (let round = 0; round < 20; round += 1) {
      const id = (await new OpenAI({ apiKey: aliceKey, baseURL: a.url, maxRetries: 0 }).post<{ Result: { Id: string } }>('/api/asset/createMedia', { body: createBody })).Result.Id;
      expect(await statusOf(new OpenAI({ apiKey: bobKey, baseURL: b.url, maxRetries: 0 }).get('/api/asset/get', { query: { id } })), `round ${round}`).toBe(404);
    }
  });
});
}
