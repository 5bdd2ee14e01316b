/**
 * The Seedance asset routes spend the operator's upstream account though they cost the caller no quota: each
 * counts as one request against the key's rpm (the window every relay route shares), a full window is a 429
 * in OpenAI's envelope before any lookup or upstream call, and each request leaves a log row (quota 0).
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeArkAssetUpstream, type FakeArkAssetUpstream } from '../fakes/fake-ark-asset-upstream.js';
import { aliceKey, arkKey, assetOwnersConfig, bobKey } from './asset-owners-fixture.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import type { DialectName } from '../../src/storage/database-schema.js';

const createBody = { url: 'https://example.com/cat.jpg', name: 'cat.jpg', assetType: 'Image' };
type ArkAnswer = { Result?: { Id?: string } };

let upstream: FakeArkAssetUpstream;
let gateway: TestGateway | undefined;
const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway!.url, maxRetries: 0 });

/** alice's key at `rpm` requests per minute; bob's unlimited. */
async function startWithRpm(rpm: number, dialect: DialectName = 'sqlite'): Promise<TestGateway> {
  const config = assetOwnersConfig(upstream.url) as unknown as { tokens: Record<string, unknown>[] };
  config.tokens = config.tokens.map((token) => (token.name === 'alice-key' ? { ...token, rate_limit: { rpm } } : token));
  let clock = Date.UTC(2026, 2, 27, 12);
  gateway = await startTestGateway({ dialect, config: config as never, now: () => (clock += 1) });
  return gateway;
}

async function refusal(call: Promise<unknown>): Promise<{ status: number | undefined; error: any; headers: Headers | undefined }> {
  try {
    await call;
    return { status: 200, error: undefined, headers: undefined };
  } catch (error) {
    const failure = error as { status?: number; error?: unknown; headers?: Headers };
    return { status: failure.status, error: failure.error, headers: failure.headers };
  }
}

beforeAll(async () => {
  upstream = await startFakeArkAssetUpstream({ expectedKeys: [arkKey], idPrefix: 'asset-20260327164915-l' });
});
afterAll(async () => {
  await upstream?.close();
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  upstream.requests.length = 0;
});

describe('Seedance asset routes and the request rate limit', () => {
  it('createMedia and get count against the key rpm; the next is a 429 in OpenAI envelope with Retry-After, and no upstream is asked', async () => {
    await startWithRpm(3);
    const alice = sdk(aliceKey);
    const { data, response } = await alice.post<ArkAnswer>('/api/asset/createMedia', { body: createBody }).withResponse();
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('2');
    const id = data.Result!.Id!;
    const read = await alice.get('/api/asset/get', { query: { id } }).withResponse();
    expect(read.response.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    await alice.post('/api/asset/createMedia', { body: createBody });
    expect(upstream.requests).toHaveLength(3);

    const create = await refusal(alice.post('/api/asset/createMedia', { body: createBody }));
    expect(create.status).toBe(429);
    expect(create.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(Number(create.headers?.get('retry-after'))).toBeGreaterThan(0);
    const get = await refusal(alice.get('/api/asset/get', { query: { id } }));
    expect(get.status).toBe(429);
    expect(get.error).toMatchObject({ type: 'rate_limit_error' });
    expect(upstream.requests).toHaveLength(3);

    // Bob's key has no limit: alice's window is hers alone.
    expect((await sdk(bobKey).post<ArkAnswer>('/api/asset/createMedia', { body: createBody })).Result?.Id).toBeDefined();
  });

  it('the asset routes share the key window with the video routes: after two creates a video submit is refused at rpm 2, free of charge', async () => {
    const gateway = await startWithRpm(2);
    const alice = sdk(aliceKey);
    await alice.post('/api/asset/createMedia', { body: createBody });
    await alice.post('/api/asset/createMedia', { body: createBody });
    const videos = new OpenAI({ apiKey: aliceKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).videos;
    const submit = await refusal(videos.create({ model: 'doubao-seedance-2-0-260128' as never, prompt: 'a cat' }));
    expect(submit.status).toBe(429);
    expect(submit.error).toMatchObject({ type: 'rate_limit_error' });
    expect(upstream.requests).toHaveLength(2);
    await gateway.settled();
    const token = await gateway.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'alice-key').executeTakeFirstOrThrow();
    expect(Number(token.used_quota)).toBe(0);
  });

  it('a refused bad body (400) takes nothing from the window', async () => {
    await startWithRpm(1);
    const alice = sdk(aliceKey);
    expect((await refusal(alice.post('/api/asset/createMedia', { body: { ...createBody, assetType: 'Gif' } }))).status).toBe(400);
    expect((await refusal(alice.get('/api/asset/get', { query: { id: 'a/b' } }))).status).toBe(400);
    expect((await refusal(alice.post('/api/asset/createMedia', { body: createBody }))).status).toBe(200);
    expect((await refusal(alice.post('/api/asset/createMedia', { body: createBody }))).status).toBe(429);
  });
});

for (const { dialect, available } of allDialects) {
describe.skipIf(!available)(`Seedance asset routes in the request log on ${dialect}`, () => {
  it('each create and get leaves a row: quota 0, its route, its status, the channel that answered', async () => {
    const gateway = await startWithRpm(10, dialect);
    const id = (await sdk(aliceKey).post<ArkAnswer>('/api/asset/createMedia', { body: createBody })).Result!.Id!;
    await sdk(aliceKey).get('/api/asset/get', { query: { id } });
    expect((await refusal(sdk(bobKey).get('/api/asset/get', { query: { id } }))).status).toBe(404);
    upstream.enqueueFault(500);
    expect((await refusal(sdk(bobKey).post('/api/asset/createMedia', { body: createBody }))).status).toBe(500);
    await gateway.settled();
    const db = gateway.gateway.services.database.db;
    const channel = await db.selectFrom('channels').select('id').where('name', '=', 'ark').executeTakeFirstOrThrow();
    const rows = await db.selectFrom('logs').innerJoin('tokens', 'tokens.id', 'logs.token_id').select(['tokens.name', 'logs.path', 'logs.status', 'logs.quota', 'logs.channel_id', 'logs.model', 'logs.style', 'logs.error']).orderBy('logs.id').execute();
    expect(rows.map((row) => ({ ...row, quota: Number(row.quota) }))).toEqual([
      { name: 'alice-key', path: '/api/asset/createMedia', status: 200, quota: 0, channel_id: channel.id, model: null, style: 'seedance-asset', error: null },
      { name: 'alice-key', path: '/api/asset/get', status: 200, quota: 0, channel_id: channel.id, model: null, style: 'seedance-asset', error: null },
      { name: 'bob-key', path: '/api/asset/get', status: 404, quota: 0, channel_id: null, model: null, style: 'seedance-asset', error: `No asset '${id}'.` },
      { name: 'bob-key', path: '/api/asset/createMedia', status: 500, quota: 0, channel_id: channel.id, model: null, style: 'seedance-asset', error: expect.stringContaining('fault 500') },
    ]);
  });
});
}
