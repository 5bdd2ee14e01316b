/**
 * From the assets audit: one caller never reads another caller's Seedance asset through the gateway —
 * after 72 hours, after a restart without Redis, or when its create answered no id (ownership is kept in
 * the database, asset_owners, not in a memory that forgets).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeArkAssetUpstream, type FakeArkAssetUpstream } from '../fakes/fake-ark-asset-upstream.js';
import { aliceKey, arkKey, assetOwnersConfig, bobKey, statusOf } from './asset-owners-fixture.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { createTestDatabase, type TestDatabase } from '../support/test-databases.js';

const createBody = { url: 'https://example.com/private-photo.jpg', name: 'alice-private.jpg', assetType: 'Image' };

let upstream: FakeArkAssetUpstream;
beforeAll(async () => {
  upstream = await startFakeArkAssetUpstream({ expectedKeys: [arkKey], idPrefix: `asset-20260327164915-o${Date.now().toString(36)}` });
});
afterAll(async () => {
  await upstream?.close();
});

describe('asset ownership survives what the memory forgets', () => {
  it("after 72 hours another caller still cannot read alice's asset", async () => {
    let clock = Date.UTC(2026, 2, 27);
    const gateway = await startTestGateway({ config: assetOwnersConfig(upstream.url), now: () => clock });
    try {
      const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
      const id = (await sdk(aliceKey).post<{ Result: { Id: string } }>('/api/asset/createMedia', { body: createBody })).Result.Id;
      expect(await statusOf(sdk(bobKey).get('/api/asset/get', { query: { id } }))).toBe(404);
      clock += 73 * 3600_000;
      upstream.requests.length = 0;
      // Alice's own read still works; Bob's must not.
      expect(await statusOf(sdk(aliceKey).get('/api/asset/get', { query: { id } }))).toBe(200);
      expect(await statusOf(sdk(bobKey).get('/api/asset/get', { query: { id } })), 'bob after 73 h').toBe(404);
    } finally {
      await gateway.close();
    }
  });

  it("after a restart (no Redis) another caller still cannot read alice's asset", async () => {
    const database: TestDatabase = await createTestDatabase('sqlite');
    try {
      const before = await startTestGateway({ config: assetOwnersConfig(upstream.url), databaseUrl: database.url });
      const id = (await new OpenAI({ apiKey: aliceKey, baseURL: before.url, maxRetries: 0 }).post<{ Result: { Id: string } }>('/api/asset/createMedia', { body: createBody })).Result.Id;
      await before.close();
      const after = await startTestGateway({ config: assetOwnersConfig(upstream.url), databaseUrl: database.url });
      try {
        const bob = new OpenAI({ apiKey: bobKey, baseURL: after.url, maxRetries: 0 });
        expect(await statusOf(bob.get('/api/asset/get', { query: { id } }))).toBe(404);
      } finally {
        await after.close();
      }
    } finally {
      await database.drop();
    }
  });

  it("a stranger cannot read an asset whose create answered {} (the id is the upstream's, shared key)", async () => {
    const gateway = await startTestGateway({ config: assetOwnersConfig(upstream.url) });
    try {
      upstream.answerNextCreateEmpty();
      await new OpenAI({ apiKey: aliceKey, baseURL: gateway.url, maxRetries: 0 }).post('/api/asset/createMedia', { body: createBody });
      const id = [...upstream.assets.keys()].at(-1)!;
      const bob = new OpenAI({ apiKey: bobKey, baseURL: gateway.url, maxRetries: 0 });
      // Alice cannot learn this id from the gateway ({} answer); Bob reading it must not succeed either.
      expect(await statusOf(bob.get('/api/asset/get', { query: { id } }))).toBe(404);
    } finally {
      await gateway.close();
    }
  });
});
