import { ApiError } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, modelOf, startBillingFixture, tokens, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, geminiRaw } from './gemini-support.js';

/**
 * `:embedContent` and `:batchEmbedContents` (docs/behaviour.md "Styles and conversion"): the @google/genai
 * SDK's `models.embedContent` against a Gemini channel — bodies relayed as sent (model mapped in the path and
 * in each batch request), answers as received, the embedded text billed at the input price, counted locally.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, modelMapping: { gemini: { [modelOf.gemini]: 'text-embedding-004' } } });
});
afterAll(async () => fixture?.close());

const embeddings = (count: number) => ({ embeddings: Array.from({ length: count }, (_, index) => ({ values: [0.125 * (index + 1), -0.5, 0.25] })) });

describe('Gemini embeddings through @google/genai', () => {
  it('models.embedContent: batchEmbedContents to the mapped model, vectors back, the texts billed as input', async () => {
    fixture.primary.gemini.enqueue({ json: embeddings(2) });
    const texts = ['The quick brown fox', 'jumps over the lazy dog'];
    const { result, row, charged } = await booked(fixture, () => fixture.sdk.gemini.models.embedContent({ model: modelOf.gemini, contents: texts, config: { outputDimensionality: 3 } }));
    expect(result!.embeddings?.map((embedding) => embedding.values)).toEqual(embeddings(2).embeddings.map((embedding) => embedding.values));
    const upstream = fixture.primary.gemini.requests.at(-1)!;
    expect(upstream.path).toBe('/v1beta/models/text-embedding-004:batchEmbedContents');
    expect(upstream.headers['x-goog-api-key']).toBeDefined();
    expect(upstream.headers.authorization).toBeUndefined();
    const body = upstream.body as { requests: { model: string; content: unknown; outputDimensionality?: number }[] };
    expect(body.requests.map((request) => request.model)).toEqual(['models/text-embedding-004', 'models/text-embedding-004']);
    expect(body.requests[0]!.content).toEqual({ parts: [{ text: texts[0] }], role: 'user' });
    expect(body.requests[0]!.outputDimensionality).toBe(3);
    const input = tokens(texts[0]!) + tokens(texts[1]!);
    expect(row).toMatchObject({ input_tokens: input, output_tokens: 0, usage_source: 'local', style: 'gemini-batchEmbedContents' });
    expect(charged).toBe(expectedCharge({ input, output: 0 }));
  });

  it(':embedContent with one content and a title, raw: relayed, both billed, the upstream model in the path', async () => {
    fixture.primary.gemini.enqueue({ json: { embedding: { values: [1, 2, 3] } } });
    const { result, charged } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:embedContent`, { content: { parts: [{ text: 'hello world' }] }, taskType: 'RETRIEVAL_DOCUMENT', title: 'A greeting' }));
    expect(result!.status).toBe(200);
    expect(result!.json).toEqual({ embedding: { values: [1, 2, 3] } });
    const upstream = fixture.primary.gemini.requests.at(-1)!;
    expect(upstream.path).toBe('/v1beta/models/text-embedding-004:embedContent');
    expect(upstream.body).toEqual({ content: { parts: [{ text: 'hello world' }] }, taskType: 'RETRIEVAL_DOCUMENT', title: 'A greeting' });
    expect(charged).toBe(expectedCharge({ input: tokens('hello world') + tokens('A greeting'), output: 0 }));
  });

  it('a body without content or requests → 400 INVALID_ARGUMENT, nothing charged, no upstream call', async () => {
    const calls = fixture.primary.gemini.requests.length;
    for (const [action, body] of [['embedContent', {}], ['batchEmbedContents', { requests: [] }], ['batchEmbedContents', { requests: [{ model: 'x' }] }]] as const) {
      const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:${action}`, body);
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    }
    expect(fixture.primary.gemini.requests.length).toBe(calls);
  });

  it('a batch request naming another model than the path → 400 naming it (Gemini requires them equal; it would be priced as the path model), nothing charged, no upstream call', async () => {
    const calls = fixture.primary.gemini.requests.length;
    const before = await fixture.balances();
    const content = { parts: [{ text: 'hi' }] };
    const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:batchEmbedContents`, { requests: [{ model: `models/${modelOf.gemini}`, content }, { model: 'models/gemini-embedding-001-premium', content }] });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('requests.1.model') });
    expect(fixture.primary.gemini.requests.length).toBe(calls);
    await fixture.settled();
    expect(await fixture.balances()).toEqual(before);
  });

  it('a model only a non-Gemini channel serves is not sent there (503); an upstream error comes back in Google\'s envelope, free', async () => {
    const error = await fixture.sdk.gemini.models.embedContent({ model: modelOf['openai-chat'], contents: 'x' }).catch((caught: unknown) => caught);
    expect((error as ApiError).status).toBe(503);
    fixture.primary.gemini.enqueue({ status: 400, json: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } } });
    const { error: refused, charged } = await booked(fixture, () => fixture.sdk.gemini.models.embedContent({ model: modelOf.gemini, contents: 'x' }));
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(400);
    expect(charged).toBe(0);
  });
});
