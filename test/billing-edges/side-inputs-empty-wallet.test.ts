/**
 * From the side-APIs audit: inputs the prompt estimate could not see reserved nothing, and a reservation of
 * 0 is admitted on any balance — so a key with nothing left was served image embeddings and image reranks,
 * its overage capped at its empty balance: free. Images now count 1000 tokens each, and every priced
 * request reserves at least one prompt token (docs/behaviour.md "Billing"); free and unpriced models still
 * reserve nothing. On every database: the refusal is the ledger's reserve statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';

const keyOf = (name: string) => `sk-${name.padEnd(48, 'w')}`;
const quotaPerUnit = 500_000;
/** 2 $ per 1M input tokens, at 500,000 units per $: one unit per token. */
const inputPrice = 2;
const image = 'https://example.com/cat.png';

const embeddingsAnswer = { object: 'list', model: 'jina-clip-v2', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }] };
const rerankAnswer = { model: 'jina-reranker-m0', results: [{ index: 0, relevance_score: 0.9 }] };
const moderationsAnswer = { id: 'modr-1', model: 'omni-moderation-latest', results: [{ flagged: false, categories: {}, category_scores: {} }] };

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`side endpoints against an empty key on ${dialect}`, () => {
    let upstream: ScriptedUpstream;
    let gateway: TestGateway;
    beforeAll(async () => {
      upstream = await startScriptedUpstream();
      const channel = { type: 'openai' as const, base_url: upstream.url, key: 'sk-up', groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} };
      gateway = await startTestGateway({
        dialect,
        config: {
          quota_per_unit: quotaPerUnit,
          allow_unpriced_models: true,
          retry_times: 0,
          prices: { 'emb-model': { input: inputPrice }, 'rr-model': { input: inputPrice }, 'mod-model': { input: inputPrice }, 'free-emb': { input: 0 } },
          channels: [{ ...channel, name: 'oai', models: ['emb-model', 'rr-model', 'mod-model', 'free-emb', 'unpriced-emb'] }],
          users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
          tokens: [
            { name: 'empty', user: 'u', key: keyOf('empty'), quota: 0, expires_at: 0, enabled: true },
            { name: 'funded', user: 'u', key: keyOf('funded'), quota: 1_000_000, expires_at: 0, enabled: true },
            { name: 'short', user: 'u', key: keyOf('short'), quota: 500, expires_at: 0, enabled: true },
          ],
        } as never,
      });
    });
    afterAll(async () => {
      await gateway?.close();
      await upstream?.close();
    });

    const post = (key: string, path: string, body: unknown) =>
      fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${keyOf(key)}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    /** Status of a call of the empty key, and how many upstream calls it made; the queued answer is dropped after. */
    async function fromEmptyKey(path: string, body: unknown, answer: unknown): Promise<{ status: number; upstreamCalls: number }> {
      const calls = upstream.requests.length;
      upstream.enqueue({ json: answer });
      const response = await post('empty', path, body);
      await response.text();
      upstream.clearQueue();
      return { status: response.status, upstreamCalls: upstream.requests.length - calls };
    }

    async function usedOf(name: string): Promise<number> {
      await gateway.settled();
      const row = await gateway.gateway.services.database.db.selectFrom('tokens').select(['used_quota']).where('name', '=', name).executeTakeFirstOrThrow();
      return Number(row.used_quota);
    }

    it('image embeddings (Jina `{ image }`, `{ url }`, `{ image_url }`) → 402 before any upstream call', async () => {
      for (const input of [[{ image }], [{ url: image }], [{ image_url: image }]]) {
        expect(await fromEmptyKey('/v1/embeddings', { model: 'emb-model', input }, embeddingsAnswer)).toEqual({ status: 402, upstreamCalls: 0 });
      }
      expect(await usedOf('empty')).toBe(0);
    });

    it('a rerank of image documents with an empty query, on a token price → 402 before any upstream call', async () => {
      const body = { model: 'rr-model', query: '', documents: [{ image }, { image: 'https://example.com/dog.png' }] };
      expect(await fromEmptyKey('/v1/rerank', body, rerankAnswer)).toEqual({ status: 402, upstreamCalls: 0 });
    });

    it('moderations of an image part, on a token price → 402 before any upstream call', async () => {
      const body = { model: 'mod-model', input: [{ type: 'image_url', image_url: { url: image } }] };
      expect(await fromEmptyKey('/v1/moderations', body, moderationsAnswer)).toEqual({ status: 402, upstreamCalls: 0 });
    });

    it('an input the estimate counts as nothing (an empty string) still reserves: 402 before any upstream call', async () => {
      // An empty string to embed is no longer reserved for: OpenAI refuses it, and so does the gateway (a 400 first).
      expect(await fromEmptyKey('/v1/embeddings', { model: 'emb-model', input: [''] }, embeddingsAnswer)).toEqual({ status: 400, upstreamCalls: 0 });
      expect(await fromEmptyKey('/v1/rerank', { model: 'rr-model', query: '', documents: [''] }, rerankAnswer)).toEqual({ status: 402, upstreamCalls: 0 });
    });

    it('a free model (input price 0) and an unpriced one (allow_unpriced_models) still reserve nothing: served to the empty key', async () => {
      expect(await fromEmptyKey('/v1/embeddings', { model: 'free-emb', input: [' '] }, embeddingsAnswer)).toEqual({ status: 200, upstreamCalls: 1 });
      expect(await fromEmptyKey('/v1/embeddings', { model: 'unpriced-emb', input: [{ image }] }, embeddingsAnswer)).toEqual({ status: 200, upstreamCalls: 1 });
      expect(await usedOf('empty')).toBe(0);
    });

    it('a funded key: an image embedding without usage is charged 1000 tokens at the input price', async () => {
      const before = await usedOf('funded');
      upstream.enqueue({ json: embeddingsAnswer });
      const response = await post('funded', '/v1/embeddings', { model: 'emb-model', input: [{ image }] });
      expect(response.status).toBe(200);
      await response.text();
      expect((await usedOf('funded')) - before).toBe(1000);
    });

    it('a key of 500 units: a text embedding is served, an image one (1000 tokens reserved) is refused 402 before any upstream call', async () => {
      const calls = upstream.requests.length;
      upstream.enqueue({ json: embeddingsAnswer });
      const refused = await post('short', '/v1/embeddings', { model: 'emb-model', input: [{ image }] });
      expect(refused.status).toBe(402);
      await refused.text();
      expect(upstream.requests.length).toBe(calls);
      const served = await post('short', '/v1/embeddings', { model: 'emb-model', input: ['hello'] });
      expect(served.status).toBe(200);
      await served.text();
    });
  });
}
