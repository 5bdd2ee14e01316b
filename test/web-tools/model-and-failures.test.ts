/**
 * The web reader and search are routed, priced and limited by their own model, whatever model the body
 * names; a page delivered as Markdown or text is one call even when its content is JSON with a `code`
 * (only UniFuncs' `application/json` envelope reports a failure).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'q'.repeat(48)}`;
const searchOnlyKey = `sk-${'o'.repeat(48)}`;
const readerPrice = 0.02;
const searchPrice = 0.002;
const readerCharge = readerPrice * 500_000;

let upstream: ScriptedUpstream;
let gateway: TestGateway;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startTestGateway({
    config: {
      retry_times: 0,
      prices: { 'web-reader': { per_call: readerPrice }, 'web-search': { per_call: searchPrice } },
      channels: [
        { name: 'unifuncs', type: 'openai', base_url: upstream.url, key: 'sk-unifuncs', models: ['web-reader', 'web-search'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} },
      ],
      users: [{ username: 'reader', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: [
        { name: 'reader-key', user: 'reader', key: clientKey, quota: 1_000_000_000, expires_at: 0, enabled: true },
        { name: 'search-only', user: 'reader', key: searchOnlyKey, quota: 1_000_000_000, expires_at: 0, enabled: true, model_limits: ['web-search'] },
      ],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.clearQueue();
  upstream.requests.length = 0;
});

const post = (path: string, body: string) => fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body });

async function used(): Promise<number> {
  await gateway.settled();
  const row = await gateway.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'reader-key').executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

describe('web reader billing', () => {
  it('a page read through /v1/web-reader/read costs the reader price even when the body names the cheaper `web-search` model', async () => {
    upstream.enqueue({ raw: ['# Page\n\ntext\n'], headers: { 'content-type': 'text/markdown; charset=utf-8' } });
    const before = await used();
    const response = await post('/v1/web-reader/read', JSON.stringify({ url: 'https://example.com', format: 'markdown', model: 'web-search' }));
    expect(response.status).toBe(200);
    await response.text();
    // The service delivered is the reader's (the upstream was called at /api/web-reader/read).
    expect(upstream.requests[0]!.path).toBe('/api/web-reader/read');
    // Right: the endpoint's own price (the reader's), not that of a model the client names.
    expect((await used()) - before).toBe(readerCharge);
  });

  it('a Markdown page whose text is JSON with a non-zero `code` is still a delivered page: one call charged', async () => {
    // The user asked for Markdown; UniFuncs delivered the page's text, which is an API's JSON error body.
    const pageText = '{"code": 404, "message": "not found", "data": "a lot of page content that the user reads"}';
    upstream.enqueue({ raw: [pageText], headers: { 'content-type': 'text/markdown; charset=utf-8' } });
    const before = await used();
    const response = await post('/v1/web-reader/read', JSON.stringify({ url: 'https://api.example.com/x.json', format: 'markdown' }));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(pageText);
    expect((await used()) - before).toBe(readerCharge);
  });

  it('a key whose model_limits allow only web-search cannot read pages by naming `web-search` in the reader body', async () => {
    upstream.enqueue({ raw: ['# Page\n'], headers: { 'content-type': 'text/markdown' } });
    const response = await fetch(`${gateway.url}/v1/web-reader/read`, { method: 'POST', headers: { authorization: `Bearer ${searchOnlyKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://example.com', model: 'web-search' }) });
    await response.text();
    // Right (docs/behaviour.md Authentication: a model outside the token's model_limits → 403).
    expect({ status: response.status, upstreamCalls: upstream.requests.length }).toEqual({ status: 403, upstreamCalls: 0 });
  });
});
