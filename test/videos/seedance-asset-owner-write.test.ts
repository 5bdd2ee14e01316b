/**
 * A Seedance asset create that the upstream made but whose `asset_owners` row the database refused: the
 * write is tried again (a few tries, short waits) before the asset is given up, and a given-up asset is
 * reported to the operator with its id, maker and the statement that restores its row — the upstream
 * made (and billed) it, and without the row nobody can use it through the gateway. The database refuses
 * for real: the table is renamed away around the refused writes, so each dialect's driver raises its own
 * error.
 */
import OpenAI from 'openai';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AssetOwnerRow } from '../../src/storage/asset-owners-repository.js';
import { startFakeArkAssetUpstream, type FakeArkAssetUpstream } from '../fakes/fake-ark-asset-upstream.js';
import { runOperatorStatement } from '../support/run-operator-statement.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { aliceKey, arkKey, assetOwnersConfig, bobKey, statusOf } from './asset-owners-fixture.js';

const createBody = { url: 'https://example.com/clip.mp4', name: 'clip.mp4', assetType: 'Video' };

describe.each(allDialects)('an asset owner row the database refuses, on $dialect', ({ dialect, available }) => {
  let upstream: FakeArkAssetUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    if (!available) return;
    upstream = await startFakeArkAssetUpstream({ expectedKeys: [arkKey], idPrefix: `asset-20260327164915-w${dialect}${Date.now().toString(36)}` });
    gateway = await startTestGateway({ dialect, config: assetOwnersConfig(upstream.url) });
  });
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await upstream.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** The next `refusals` owner-row writes meet a database without the table; returns every write's outcome. */
  function refuseOwnerWrites(refusals: number): string[] {
    const { db } = gateway.gateway.services.database;
    const owners = gateway.gateway.services.repositories.assetOwners;
    const record = owners.record.bind(owners);
    const outcomes: string[] = [];
    let left = refusals;
    const rename = (from: string, to: string) => sql.raw(dialect === 'mysql' ? `rename table ${from} to ${to}` : `alter table ${from} rename to ${to}`).execute(db);
    vi.spyOn(owners, 'record').mockImplementation(async (row: AssetOwnerRow) => {
      if (left === 0) return record(row).then(() => void outcomes.push('written'));
      left -= 1;
      await rename('asset_owners', 'asset_owners_away');
      try {
        await record(row);
        outcomes.push('written');
      } catch (error) {
        outcomes.push('refused');
        throw error;
      } finally {
        await rename('asset_owners_away', 'asset_owners');
      }
    });
    return outcomes;
  }

  const ownerRow = (id: string) => gateway.gateway.services.database.db.selectFrom('asset_owners').selectAll().where('asset_id', '=', id).executeTakeFirst();

  it.skipIf(!available)('is written on a later try: the create answers its id, and its maker reads it back', async () => {
    const outcomes = refuseOwnerWrites(2);
    const alice = new OpenAI({ apiKey: aliceKey, baseURL: gateway.url, maxRetries: 0 });
    const id = (await alice.post<{ Result: { Id: string } }>('/api/asset/createMedia', { body: createBody })).Result.Id;
    expect(outcomes).toEqual(['refused', 'refused', 'written']);
    expect(await ownerRow(id)).toBeDefined();
    expect((await alice.get<{ Result: { Id: string } }>('/api/asset/get', { query: { id } })).Result.Id).toBe(id);
    expect(await statusOf(new OpenAI({ apiKey: bobKey, baseURL: gateway.url, maxRetries: 0 }).get('/api/asset/get', { query: { id } }))).toBe(404);
  });

  it.skipIf(!available)('refused on every try is given up: a 500, and one line tells the operator the asset, its maker and how to restore it', async () => {
    const outcomes = refuseOwnerWrites(99);
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr) as (chunk: string | Uint8Array) => boolean;
    vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array) => (String(chunk).includes('owner row') ? lines.push(String(chunk)) > 0 : write(chunk))) as typeof process.stderr.write);
    const before = new Set(upstream.assets.keys());
    const status = await statusOf(new OpenAI({ apiKey: aliceKey, baseURL: gateway.url, maxRetries: 0 }).post('/api/asset/createMedia', { body: createBody }));
    const made = [...upstream.assets.keys()].filter((id) => !before.has(id));

    expect(status).toBe(500);
    expect(made).toHaveLength(1);
    expect(outcomes).toEqual(['refused', 'refused', 'refused', 'refused']);
    expect(await ownerRow(made[0]!)).toBeUndefined();
    const aliceId = (await gateway.gateway.services.database.db.selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow()).id;
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`asset ${JSON.stringify(made[0])} of user ${aliceId}`);
    expect(lines[0]).toContain(`VALUES (?, ?, ?, ?, ?) with parameters [${JSON.stringify(made[0])},${aliceId},`);

    // The operator runs the statement the line gives: the asset is its maker's again.
    vi.restoreAllMocks();
    await runOperatorStatement(gateway.gateway.services.database.db, dialect, lines[0]!, 'restore it with: ');
    const alice = new OpenAI({ apiKey: aliceKey, baseURL: gateway.url, maxRetries: 0 });
    expect((await alice.get<{ Result: { Id: string } }>('/api/asset/get', { query: { id: made[0]! } })).Result.Id).toBe(made[0]);
  });
});
