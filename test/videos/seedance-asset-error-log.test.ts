/**
 * An error body from the Ark asset API (Volcengine's `ResponseMetadata.Error`) reaches the request log
 * bounded, as every upstream error text does (read-upstream-error.ts keeps 500 characters of a body whose
 * message it cannot name, a log row's `error` keeps 1,000): the client still gets the body as it came.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeArkAssetUpstream, type FakeArkAssetUpstream } from '../fakes/fake-ark-asset-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { aliceKey, arkKey, assetOwnersConfig, statusOf } from './asset-owners-fixture.js';

const createBody = { url: 'https://example.com/a.jpg', name: 'a.jpg', assetType: 'Image' };
const huge = `InvalidParameter: ${'the url could not be fetched; '.repeat(3_000)}`; // ~90 KB: under the 256 KiB an asset answer may be

describe('a Seedance asset error body of any size', () => {
  let upstream: FakeArkAssetUpstream;
  let gateway: TestGateway;
  beforeAll(async () => {
    upstream = await startFakeArkAssetUpstream({ expectedKeys: [arkKey] });
    gateway = await startTestGateway({ config: assetOwnersConfig(upstream.url) });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  const lastRow = async () => {
    await gateway.settled();
    return gateway.gateway.services.database.db.selectFrom('logs').select(['status', 'error']).where('path', '=', '/api/asset/createMedia').orderBy('id', 'desc').executeTakeFirstOrThrow();
  };

  it('is relayed whole to the client and logged bounded', async () => {
    upstream.enqueueFault(400, huge);
    const relayed = await fetch(`${gateway.url}/api/asset/createMedia`, { method: 'POST', headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'application/json' }, body: JSON.stringify(createBody) });
    expect(relayed.status).toBe(400);
    expect(((await relayed.json()) as { ResponseMetadata: { Error: { Message: string } } }).ResponseMetadata.Error.Message).toBe(huge);
    const row = await lastRow();
    expect(Number(row.status)).toBe(400);
    expect(row.error).toContain('InvalidParameter: the url could not be fetched');
    expect(row.error?.length).toBeLessThanOrEqual(1000);
  });

  it("refusing the channel's key, is the log's alone, bounded", async () => {
    upstream.enqueueFault(401, huge);
    expect(await statusOf(new OpenAI({ apiKey: aliceKey, baseURL: gateway.url, maxRetries: 0 }).post('/api/asset/createMedia', { body: createBody }))).toBe(502);
    const row = await lastRow();
    expect(row.error).toContain('The upstream said: ');
    expect(row.error?.length).toBeLessThanOrEqual(1000);
  });
});
