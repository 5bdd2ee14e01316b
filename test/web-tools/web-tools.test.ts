/**
 * Spec §4.5 / protocols.md §12: /v1/web-reader/read and /v1/web-search/search relayed to a UniFuncs-style
 * upstream (web-tools-fixture.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readerCharge, searchCharge, startWebToolsFixture, type WebToolsFixture } from './web-tools-fixture.js';

let f: WebToolsFixture;
beforeAll(async () => {
  f = await startWebToolsFixture();
});
afterAll(async () => {
  await f?.close();
});
beforeEach(() => f.reset());

const post = (path: string, body: string) => f.post(path, body);
const charged = (run: () => Promise<Response>) => f.charged(run);
const lastLog = () => f.lastLog();

describe('POST /v1/web-reader/read', () => {
  it('goes to {base}/api/web-reader/read byte for byte (no model added); Markdown comes back as sent, one call charged', async () => {
    const markdown = '# Example Domain\n\nThis domain is for use in illustrative examples.\n';
    f.upstream.enqueue({ raw: [markdown], headers: { 'content-type': 'text/markdown; charset=utf-8' } });
    const body = '{"url":"https://example.com","format":"markdown","liteMode":true,"readTimeout":120000}';
    const { response, text, charge } = await charged(() => post('/v1/web-reader/read', body));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(text).toBe(markdown);
    const sent = f.upstream.requests[0]!;
    expect(sent.path).toBe('/api/web-reader/read');
    expect(sent.headers.authorization).toBe('Bearer sk-unifuncs');
    expect(sent.rawBody).toBe(body);
    expect(charge).toBe(readerCharge);
    expect(await lastLog()).toMatchObject({ model: 'web-reader', style: 'web-reader', status: 200, quota: readerCharge });
  });

  it('a JSON envelope with code 0 is a call; a non-zero code (UniFuncs answers failures with 200) costs nothing', async () => {
    const ok = { code: 0, message: '', data: { title: 'Example', content: 'text' }, requestId: 'r1' };
    const failed = { code: -30001, message: 'fetch failed', data: null };
    f.upstream.enqueue({ json: ok }, { json: failed });
    const first = await charged(() => post('/v1/web-reader/read', JSON.stringify({ url: 'https://example.com', format: 'json' })));
    const second = await charged(() => post('/v1/web-reader/read', JSON.stringify({ url: 'https://unreachable.example', format: 'json' })));
    expect(JSON.parse(first.text)).toEqual(ok);
    expect(first.charge).toBe(readerCharge);
    expect(second.response.status).toBe(200);
    expect(JSON.parse(second.text)).toEqual(failed);
    expect(second.charge).toBe(0);
  });

  it('no url, or an empty one → 400 naming it, no upstream call, no charge', async () => {
    for (const body of ['{}', '{"url":""}', '{"url":5}']) {
      const { response, text, charge } = await charged(() => post('/v1/web-reader/read', body));
      expect(response.status).toBe(400);
      expect(JSON.parse(text).error.param).toBe('url');
      expect(charge).toBe(0);
    }
    expect(f.upstream.requests).toHaveLength(0);
  });
});

describe('POST /v1/web-search/search', () => {
  it('goes to {base}/api/web-search/search; the results come back as sent, one call charged', async () => {
    const results = { code: 0, message: '', requestId: 'r2', data: { webPages: [{ name: 'Node.js', url: 'https://nodejs.org', snippet: 'JavaScript runtime', siteName: 'nodejs.org' }], images: [] } };
    f.upstream.enqueue({ json: results });
    const body = JSON.stringify({ query: 'node.js', area: 'global', freshness: 'Week', count: 5 });
    const { response, text, charge } = await charged(() => post('/v1/web-search/search', body));
    expect(response.status).toBe(200);
    expect(JSON.parse(text)).toEqual(results);
    expect(f.upstream.requests[0]!.path).toBe('/api/web-search/search');
    expect(f.upstream.requests[0]!.rawBody).toBe(body);
    expect(charge).toBe(searchCharge);
  });

  it('no query, or count outside 1–50 → 400 naming it, at no charge', async () => {
    const cases: [string, string][] = [['{}', 'query'], ['{"query":""}', 'query'], ['{"query":"x","count":51}', 'count'], ['{"query":"x","count":0}', 'count']];
    for (const [body, param] of cases) {
      const { response, text, charge } = await charged(() => post('/v1/web-search/search', body));
      expect(response.status).toBe(400);
      expect(JSON.parse(text).error.param).toBe(param);
      expect(charge).toBe(0);
    }
    expect(f.upstream.requests).toHaveLength(0);
  });

  it('an upstream error status comes back and costs nothing; a refused channel key is a 502, not the client\'s 401', async () => {
    f.upstream.enqueue({ status: 401, json: { code: -20021, message: 'invalid or expired key' } });
    const { response, text, charge } = await charged(() => post('/v1/web-search/search', '{"query":"x"}'));
    expect(response.status).toBe(502);
    expect(JSON.parse(text)).toMatchObject({ error: { type: 'server_error', code: 'upstream_credentials_refused' } });
    expect(charge).toBe(0);
  });
});
