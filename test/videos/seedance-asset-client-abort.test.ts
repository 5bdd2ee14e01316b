/**
 * A createMedia whose client leaves while the gateway reads the asset service's 2xx answer: the asset
 * exists upstream, so its ownership row must be written as if the client had stayed — its maker reads it
 * back through the gateway, another caller gets the 404, on every database. The fake Ark asset upstream
 * sits behind test/fakes/held-answer-proxy.ts, which holds the create's answer half-sent until the test,
 * having aborted the client, releases it. Clients use fetch, as the other Seedance asset suites'
 * wire-level cases do (the openai SDK has no asset routes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeArkAssetUpstream, type FakeArkAssetUpstream } from '../fakes/fake-ark-asset-upstream.js';
import { startHeldAnswerProxy, type HeldAnswerProxy } from '../fakes/held-answer-proxy.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { aliceKey, arkKey, assetOwnersConfig, bobKey } from './asset-owners-fixture.js';

const createBody = { url: 'https://example.com/clip.mp4', name: 'alice-clip.mp4', assetType: 'Video' };
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(allDialects)('a Seedance asset create whose client leaves mid-answer, on $dialect', ({ dialect, available }) => {
  let upstream: FakeArkAssetUpstream;
  let proxy: HeldAnswerProxy;
  let gateway: TestGateway;
  let holding = false;

  beforeAll(async () => {
    if (!available) return;
    upstream = await startFakeArkAssetUpstream({ expectedKeys: [arkKey], idPrefix: `asset-20260327164915-l${dialect}${Date.now().toString(36)}` });
    proxy = await startHeldAnswerProxy(upstream.url, (request) => holding && request.method === 'POST' && request.url === '/api/asset/createMedia');
    gateway = await startTestGateway({ dialect, env: { USAGE_WAIT_SECONDS: '1' }, config: assetOwnersConfig(proxy.url) });
  });
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await proxy.close();
    await upstream.close();
  });

  const getAsset = (key: string, id: string) => fetch(`${gateway.url}/api/asset/get?id=${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${key}` } });

  it.skipIf(!available)('records the asset for its maker: the maker reads it back, another caller gets the 404 with no upstream call', async () => {
    holding = true;
    const controller = new AbortController();
    const outcome = fetch(`${gateway.url}/api/asset/createMedia`, {
      method: 'POST',
      signal: controller.signal,
      headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(createBody),
    }).then(
      () => 'answered',
      () => 'aborted',
    );
    const held = await proxy.nextHeld();
    holding = false;
    expect(held.status).toBe(200);
    await delay(50);
    controller.abort();
    expect(await outcome).toBe('aborted');
    // The gateway sees its client gone (a socket close: a few ms) before the rest of the answer comes.
    await delay(250);
    held.release();
    await gateway.settled();

    const id = (JSON.parse(held.body) as { Result: { Id: string } }).Result.Id;
    const row = await gateway.gateway.services.database.db.selectFrom('asset_owners').selectAll().where('asset_id', '=', id).executeTakeFirst();
    expect(row, 'the ownership row of an asset made upstream').toBeDefined();
    const alice = await gateway.gateway.services.database.db.selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow();
    expect(Number(row?.user_id)).toBe(Number(alice.id));

    const calls = upstream.requests.length;
    expect((await getAsset(bobKey, id)).status, "another caller's read").toBe(404);
    expect(upstream.requests.length, 'no upstream call for Bob').toBe(calls);
    const mine = await getAsset(aliceKey, id);
    expect(mine.status).toBe(200);
    expect(await mine.json()).toMatchObject({ Result: { Id: id } });
  });
});
