/**
 * Spec §4.5 / protocols.md §12: /v1/web-reader/read and /v1/web-search/search relayed to a UniFuncs-style
 * upstream (a scripted one) behind an OpenAI-type channel that lists the `web-reader` and `web-search`
 * models. There is no official SDK for these APIs: the client is `fetch`, as UniFuncs' own examples are.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'w'.repeat(48)}`;
/** Per call, in the site currency; × quota_per_unit (500 000) = the charge in quota units. */
const readerPrice = 0.002;
const searchPrice = 0.005;
const readerCharge = readerPrice * 500_000;
const searchCharge = searchPrice * 500_000;

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
      tokens: [{ name: 'reader-key', user: 'reader', key: clientKey, quota: 1_000_000_000, expires_at: 0, enabled: true }],
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

async function charged(run: () => Promise<Response>): Promise<{ response: Response; text: string; charge: number }> {
  const before = await used();
  const response = await run();
  const text = await response.text();
  return { response, text, charge: (await used()) - before };
}

async function lastLog() {
  await gateway.settled();
  return gateway.gateway.services.database.db.selectFrom('logs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
}

describe('POST /v1/web-reader/read', () => {
  it('goes to {base}/api/web-reader/read byte for byte (no model added); Markdown comes back as sent, one call charged', async () => {
    const markdown = '# Example Domain\n\nThis domain is for use in illustrative examples.\n';
    upstream.enqueue({ raw: [markdown], headers: { 'content-type': 'text/markdown; charset=utf-8' } });
    const body = '{"url":"https://example.com","format":"markdown","liteMode":true,"readTimeout":120000}';
    const { response, text, charge } = await charged(() => post('/v1/web-reader/read', body));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(text).toBe(markdown);
    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/api/web-reader/read');
    expect(sent.headers.authorization).toBe('Bearer sk-unifuncs');
    expect(sent.rawBody).toBe(body);
    expect(charge).toBe(readerCharge);
    expect(await lastLog()).toMatchObject({ model: 'web-reader', style: 'web-reader', status: 200, quota: readerCharge });
  });

  it('a JSON envelope with code 0 is a call; a non-zero code (UniFuncs answers failures with 200) costs nothing', async () => {
    const ok = { code: 0, message: '', data: { title: 'Example', content: 'text' }, requestId: 'r1' };
    const failed = { code: -30001, message: 'fetch failed', data: null };
    upstream.enqueue({ json: ok }, { json: failed });
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
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('POST /v1/web-search/search', () => {
  it('goes to {base}/api/web-search/search; the results come back as sent, one call charged', async () => {
    const results = { code: 0, message: '', requestId: 'r2', data: { webPages: [{ name: 'Node.js', url: 'https://nodejs.org', snippet: 'JavaScript runtime', siteName: 'nodejs.org' }], images: [] } };
    upstream.enqueue({ json: results });
    const body = JSON.stringify({ query: 'node.js', area: 'global', freshness: 'Week', count: 5 });
    const { response, text, charge } = await charged(() => post('/v1/web-search/search', body));
    expect(response.status).toBe(200);
    expect(JSON.parse(text)).toEqual(results);
    expect(upstream.requests[0]!.path).toBe('/api/web-search/search');
    expect(upstream.requests[0]!.rawBody).toBe(body);
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
    expect(upstream.requests).toHaveLength(0);
  });

  it('an upstream error status comes back and costs nothing', async () => {
    upstream.enqueue({ status: 401, json: { code: -20021, message: 'invalid or expired key' } });
    const { response, charge } = await charged(() => post('/v1/web-search/search', '{"query":"x"}'));
    expect(response.status).toBe(401);
    expect(charge).toBe(0);
  });
});
