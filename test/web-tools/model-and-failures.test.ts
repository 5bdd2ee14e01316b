/**
 * The web reader and search are routed, priced and limited by their own model, whatever model the body
 * names; a page delivered as Markdown or text is one call even when its content is JSON with a `code`
 * (only UniFuncs' `application/json` envelope reports a failure).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readerCharge, searchOnlyKey, startWebToolsFixture, type WebToolsFixture } from './web-tools-fixture.js';

let f: WebToolsFixture;
beforeAll(async () => {
  f = await startWebToolsFixture();
});
afterAll(async () => {
  await f?.close();
});
beforeEach(() => f.reset());

const post = (path: string, body: string) => f.post(path, body);
const used = () => f.used();

describe('web reader billing', () => {
  it('a page read through /v1/web-reader/read costs the reader price even when the body names the cheaper `web-search` model', async () => {
    f.upstream.enqueue({ raw: ['# Page\n\ntext\n'], headers: { 'content-type': 'text/markdown; charset=utf-8' } });
    const before = await used();
    const response = await post('/v1/web-reader/read', JSON.stringify({ url: 'https://example.com', format: 'markdown', model: 'web-search' }));
    expect(response.status).toBe(200);
    await response.text();
    // The service delivered is the reader's (the upstream was called at /api/web-reader/read).
    expect(f.upstream.requests[0]!.path).toBe('/api/web-reader/read');
    // Right: the endpoint's own price (the reader's), not that of a model the client names.
    expect((await used()) - before).toBe(readerCharge);
  });

  it('a Markdown page whose text is JSON with a non-zero `code` is still a delivered page: one call charged', async () => {
    // The user asked for Markdown; UniFuncs delivered the page's text, which is an API's JSON error body.
    const pageText = '{"code": 404, "message": "not found", "data": "a lot of page content that the user reads"}';
    f.upstream.enqueue({ raw: [pageText], headers: { 'content-type': 'text/markdown; charset=utf-8' } });
    const before = await used();
    const response = await post('/v1/web-reader/read', JSON.stringify({ url: 'https://api.example.com/x.json', format: 'markdown' }));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(pageText);
    expect((await used()) - before).toBe(readerCharge);
  });

  it('a key whose model_limits allow only web-search cannot read pages by naming `web-search` in the reader body', async () => {
    f.upstream.enqueue({ raw: ['# Page\n'], headers: { 'content-type': 'text/markdown' } });
    const response = await f.post('/v1/web-reader/read', JSON.stringify({ url: 'https://example.com', model: 'web-search' }), searchOnlyKey);
    await response.text();
    // Right (docs/behaviour.md Authentication: a model outside the token's model_limits → 403).
    expect({ status: response.status, upstreamCalls: f.upstream.requests.length }).toEqual({ status: 403, upstreamCalls: 0 });
  });
});
