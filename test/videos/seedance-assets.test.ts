/**
 * Spec §4.9: Seedance 2's asset routes (`POST /api/asset/createMedia`, `GET /api/asset/get?id=`), relayed to
 * the caller's asset channels — an OpenAI-style channel that lists a Seedance 2 model or sets
 * `settings.asset_api` — with the channel's key, the upstream's answer as it is (Volcengine Ark's shape),
 * free. A created asset is read back from the channel that made it, by the caller that made it only.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeArkAssetUpstream, type FakeArkAssetUpstream } from '../fakes/fake-ark-asset-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const aliceKey = `sk-${'a'.repeat(48)}`;
const bobKey = `sk-${'b'.repeat(48)}`;
const carolKey = `sk-${'c'.repeat(48)}`;
const chatOnlyKey = `sk-${'d'.repeat(48)}`;
const seedance = 'doubao-seedance-2-0-260128';
const base = { type: 'openai' as const, weight: 1, auto_disable: false, enabled: true, model_mapping: {} };

let first: FakeArkAssetUpstream;
let second: FakeArkAssetUpstream;
let gateway: TestGateway;
const client = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });

beforeAll(async () => {
  first = await startFakeArkAssetUpstream({ expectedKeys: ['ark-first'], idPrefix: 'asset-20260327164915-f' });
  second = await startFakeArkAssetUpstream({ expectedKeys: ['ark-second'], idPrefix: 'asset-20260327164915-s' });
  gateway = await startTestGateway({
    config: {
      groups: { default: 1, vip: 1 },
      prices: { [seedance]: { per_second: 0.1 }, 'house-video': { per_second: 0.1 } },
      channels: [
        // Serves assets because it lists a Seedance 2 model; the first asked (priority).
        { ...base, name: 'ark-first', base_url: first.url, key: 'ark-first', models: [seedance], groups: ['default'], priority: 10, settings: {} },
        // Serves assets because it says so.
        { ...base, name: 'ark-second', base_url: second.url, key: 'ark-second', models: ['house-video'], groups: ['default'], priority: 0, settings: { asset_api: true } },
        // A Seedance channel of another group, and one that opts out: neither is ever asked by default callers.
        { ...base, name: 'vip-ark', base_url: first.url, key: 'ark-first', models: [seedance], groups: ['vip'], priority: 20, settings: { asset_api: false } },
      ],
      users: [
        { username: 'alice', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
        { username: 'bob', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
        { username: 'carol', role: 'user', group: 'vip', quota: 1_000_000, enabled: true },
      ],
      tokens: [
        { name: 'alice-key', user: 'alice', key: aliceKey, quota: 1_000_000, expires_at: 0, enabled: true },
        { name: 'bob-key', user: 'bob', key: bobKey, quota: 1_000_000, expires_at: 0, enabled: true },
        { name: 'carol-key', user: 'carol', key: carolKey, quota: 1_000_000, expires_at: 0, enabled: true },
        // Alice's second key, limited to a chat model: it reaches no asset channel.
        { name: 'alice-chat-key', user: 'alice', key: chatOnlyKey, quota: 1_000_000, expires_at: 0, enabled: true, model_limits: ['gpt-4o-mini'] },
      ],
    } as never,
  });
});
afterAll(async () => {
  await gateway?.close();
  await first?.close();
  await second?.close();
});
beforeEach(() => {
  first.requests.length = 0;
  second.requests.length = 0;
});

const createBody = { url: 'https://example.com/cat.jpg', name: 'cat-ref-image.jpg', assetType: 'Image' };
type ArkAnswer = { ResponseMetadata?: { Action?: string; Error?: { Code: string } }; Result?: { Id?: string; Status?: string; Name?: string; AssetType?: string } };

async function used(name: string): Promise<number> {
  const row = await gateway.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', name).executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

async function statusOf(call: Promise<unknown>): Promise<{ status: number | undefined; error: any }> {
  try {
    await call;
    return { status: 200, error: undefined };
  } catch (error) {
    return { status: (error as { status?: number }).status, error: (error as { error?: unknown }).error };
  }
}

describe('Seedance asset routes', () => {
  it('createMedia goes to the top asset channel with its key and the client bytes; the answer comes back as Ark sent it; nothing is charged', async () => {
    const before = await used('alice-key');
    const answer = await client(aliceKey).post<ArkAnswer>('/api/asset/createMedia', { body: createBody });
    expect(answer.ResponseMetadata?.Action).toBe('CreateAsset');
    expect(answer.Result?.Id).toMatch(/^asset-20260327164915-f/);
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(0);
    expect(first.requests[0]).toMatchObject({ method: 'POST', path: '/api/asset/createMedia', authorization: 'Bearer ark-first' });
    expect(JSON.parse(first.requests[0]!.rawBody.toString('utf8'))).toEqual(createBody);
    expect(await used('alice-key')).toBe(before);
  });

  it('get reads the asset back from the channel that made it, as it moves from Processing to Active', async () => {
    const id = (await client(aliceKey).post<ArkAnswer>('/api/asset/createMedia', { body: { ...createBody, assetType: 'Video' } })).Result!.Id!;
    const processing = await client(aliceKey).get<ArkAnswer>('/api/asset/get', { query: { id } });
    expect(processing.Result).toMatchObject({ Id: id, Status: 'Processing', AssetType: 'Video', Name: createBody.name });
    first.activate(id);
    expect((await client(aliceKey).get<ArkAnswer>('/api/asset/get', { query: { id } })).Result?.Status).toBe('Active');
    expect(first.requests.filter((request) => request.method === 'GET').map((request) => request.path)).toEqual([`/api/asset/get?id=${id}`, `/api/asset/get?id=${id}`]);
  });

  it('a create the first channel fails (500) is made on the next, and read back from that one alone', async () => {
    first.enqueueFault(500);
    const id = (await client(aliceKey).post<ArkAnswer>('/api/asset/createMedia', { body: createBody })).Result!.Id!;
    expect(id).toMatch(/^asset-20260327164915-s/);
    first.requests.length = 0;
    expect((await client(aliceKey).get<ArkAnswer>('/api/asset/get', { query: { id } })).Result?.Id).toBe(id);
    expect(first.requests).toHaveLength(0);
  });

  it("another caller cannot read an asset: a 404 in OpenAI's envelope, and no upstream is asked", async () => {
    const id = (await client(aliceKey).post<ArkAnswer>('/api/asset/createMedia', { body: createBody })).Result!.Id!;
    first.requests.length = 0;
    const { status, error } = await statusOf(client(bobKey).get('/api/asset/get', { query: { id } }));
    expect(status).toBe(404);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'id' });
    expect(first.requests).toHaveLength(0);
  });

  it('an asset whose create answered no id cannot be read through the gateway (another caller could not be told apart)', async () => {
    second.answerNextCreateEmpty();
    first.enqueueFault(503);
    expect(await client(aliceKey).post('/api/asset/createMedia', { body: createBody })).toEqual({});
    const id = [...second.assets.keys()].at(-1)!;
    first.requests.length = 0;
    second.requests.length = 0;
    const { status, error } = await statusOf(client(aliceKey).get('/api/asset/get', { query: { id } }));
    expect({ status, param: error?.param }).toEqual({ status: 404, param: 'id' });
    expect(first.requests.length + second.requests.length).toBe(0);
  });

  it('an id the gateway did not create is a 404 without an upstream call', async () => {
    const { status } = await statusOf(client(aliceKey).get('/api/asset/get', { query: { id: 'asset-20260327164915-zzzzz' } }));
    expect(status).toBe(404);
    expect(first.requests.length + second.requests.length).toBe(0);
  });

  it('ownership is kept in the database: the record names the maker, the channel and the key', async () => {
    const id = (await client(bobKey).post<ArkAnswer>('/api/asset/createMedia', { body: createBody })).Result!.Id!;
    const row = await gateway.gateway.services.database.db.selectFrom('asset_owners').selectAll().where('asset_id', '=', id).executeTakeFirstOrThrow();
    const bob = await gateway.gateway.services.database.db.selectFrom('users').select('id').where('username', '=', 'bob').executeTakeFirstOrThrow();
    const channel = await gateway.gateway.services.database.db.selectFrom('channels').select('id').where('name', '=', 'ark-first').executeTakeFirstOrThrow();
    expect({ user: row.user_id, channel: row.channel_id, fingerprinted: /^[0-9a-f]{32}$/.test(row.key_fingerprint) }).toEqual({ user: bob.id, channel: channel.id, fingerprinted: true });
  });

  it('bad bodies and ids are refused with the field named, before any upstream call', async () => {
    const refusals: [() => Promise<unknown>, string][] = [
      [() => client(aliceKey).post('/api/asset/createMedia', { body: { name: 'x', assetType: 'Image' } }), 'url'],
      [() => client(aliceKey).post('/api/asset/createMedia', { body: { url: 42, name: 'x', assetType: 'Image' } }), 'url'],
      [() => client(aliceKey).post('/api/asset/createMedia', { body: { url: 'https://e.com/a.pdf', name: 'x', assetType: 'Pdf' } }), 'assetType'],
      [() => client(aliceKey).get('/api/asset/get'), 'id'],
      [() => client(aliceKey).get('/api/asset/get', { query: { id: '../../v1/videos' } }), 'id'],
    ];
    for (const [call, param] of refusals) {
      const { status, error } = await statusOf(call());
      expect({ status, param: error?.param }).toEqual({ status: 400, param });
    }
    expect(first.requests.length + second.requests.length).toBe(0);
  });

  it('a caller whose group has no asset channel gets 503; a channel that rejects its own key is a 502, not a 401', async () => {
    expect((await statusOf(client(carolKey).post('/api/asset/createMedia', { body: createBody }))).status).toBe(503);
    first.enqueueFault(401);
    second.enqueueFault(401);
    const { status, error } = await statusOf(client(aliceKey).post('/api/asset/createMedia', { body: createBody }));
    expect(status).toBe(502);
    expect(error).toMatchObject({ type: 'server_error', code: 'upstream_credentials_refused' });
    // The gateway's own words, as on the text routes: the upstream's message ("fault 401") is the log's alone.
    expect(String(error?.message)).toContain("The asset service refused the credentials of the gateway's channel (HTTP 401)");
    expect(String(error?.message)).not.toContain('fault 401');
    await gateway.settled();
    const row = await gateway.gateway.services.database.db.selectFrom('logs').select(['status', 'error']).where('path', '=', '/api/asset/createMedia').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(Number(row.status)).toBe(502);
    expect(row.error).toContain('The upstream said: ');
    expect(row.error).toContain('fault 401');
  });

  it("a key whose model_limits name no asset channel's model reaches none (503, no upstream call)", async () => {
    expect((await statusOf(client(chatOnlyKey).post('/api/asset/createMedia', { body: createBody }))).status).toBe(503);
    expect(first.requests.length + second.requests.length).toBe(0);
  });

  it('a wrong gateway key is a 401 before any upstream call', async () => {
    const { status } = await statusOf(client(`sk-${'z'.repeat(48)}`).post('/api/asset/createMedia', { body: createBody }));
    expect(status).toBe(401);
    expect(first.requests.length + second.requests.length).toBe(0);
  });
});
