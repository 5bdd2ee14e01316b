/**
 * Asset ids compare exactly on every database: Ark's ids are its own strings, and two that differ only in
 * case are two assets. On MySQL the `asset_owners` key was case-blind (migration 014 took the database's
 * collation), so the second of two such ids was not recorded (its insert ignored as a duplicate) and its
 * maker got a 404 for his own asset, while a lookup of it found the other user's row. Migration 022 makes
 * the key exact there.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeArkAssetUpstream, type FakeArkAssetUpstream } from '../fakes/fake-ark-asset-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { aliceKey, arkKey, assetOwnersConfig, bobKey, statusOf } from './asset-owners-fixture.js';

const createBody = { url: 'https://example.com/photo.jpg', name: 'photo.jpg', assetType: 'Image' };

describe.each(allDialects)('Seedance asset ids differing only in case, on $dialect', ({ dialect, available }) => {
  let upstream: FakeArkAssetUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    if (!available) return;
    upstream = await startFakeArkAssetUpstream({ expectedKeys: [arkKey] });
    gateway = await startTestGateway({ dialect, config: assetOwnersConfig(upstream.url) });
  });
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await upstream.close();
  });

  const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
  const create = async (key: string, id: string) => {
    upstream.nameNextAsset(id);
    return (await sdk(key).post<{ Result: { Id: string } }>('/api/asset/createMedia', { body: createBody })).Result.Id;
  };
  const read = (key: string, id: string) => sdk(key).get<{ Result: { Id: string; Name: string } }>('/api/asset/get', { query: { id } });

  it.skipIf(!available)('are two assets of two users: each maker reads his own back, neither reads the other', async () => {
    const mixed = `asset-20260327164915-Case${dialect}AbC`;
    const lower = mixed.toLowerCase();
    expect(await create(aliceKey, mixed)).toBe(mixed);
    expect(await create(bobKey, lower)).toBe(lower);

    const rows = await gateway.gateway.services.database.db.selectFrom('asset_owners').select(['asset_id', 'user_id']).execute();
    expect(rows.map((row) => row.asset_id).sort(), 'both ids recorded').toEqual([mixed, lower].sort());

    expect((await read(aliceKey, mixed)).Result.Id).toBe(mixed);
    expect((await read(bobKey, lower)).Result.Id, "bob's own asset").toBe(lower);
    const calls = upstream.requests.length;
    expect(await statusOf(read(bobKey, mixed)), "bob asking alice's id").toBe(404);
    expect(await statusOf(read(aliceKey, lower)), "alice asking bob's id").toBe(404);
    expect(upstream.requests.length, 'no upstream call for a stranger').toBe(calls);
  });

  it.skipIf(!available)('a case variant of a recorded id that nobody made is unknown', async () => {
    const made = `asset-20260327164915-Only${dialect}XyZ`;
    expect(await create(aliceKey, made)).toBe(made);
    const calls = upstream.requests.length;
    expect(await statusOf(read(aliceKey, made.toUpperCase())), 'its maker asking another spelling').toBe(404);
    expect(await statusOf(read(bobKey, made.toLowerCase())), 'a stranger asking another spelling').toBe(404);
    expect(upstream.requests.length, 'no upstream call').toBe(calls);
  });
});
