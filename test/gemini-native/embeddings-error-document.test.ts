import { ApiError } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, modelOf, startBillingFixture, tokens, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, geminiRaw } from './gemini-support.js';

/**
 * A Gemini `:embedContent` / `:batchEmbedContents` answered 200 with Google's error envelope (as a chained
 * gateway answers its own upstream's failure) delivered nothing (docs/behaviour.md "Billing"): it costs
 * nothing, and the next channel is tried, as on `generateContent`.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, fallbacks: true });
});
afterAll(async () => fixture?.close());

const exhausted = { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } };
const suspended = { error: { code: 403, message: 'Your account is suspended.', status: 'PERMISSION_DENIED' } };

describe('Gemini embeddings answered 2xx with an error document', () => {
  it(':embedContent: the fallback channel serves, billed its own answer only', async () => {
    fixture.primary.gemini.enqueue({ json: exhausted });
    fixture.fallback!.gemini.enqueue({ json: { embedding: { values: [1, 2, 3] } } });
    const text = 'The quick brown fox jumps over the lazy dog, again and again and again.';
    const fallbackCalls = fixture.fallback!.gemini.requests.length;
    const { result, row, charged } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:embedContent`, { content: { parts: [{ text }] } }));
    expect(result!.status).toBe(200);
    expect(result!.json).toEqual({ embedding: { values: [1, 2, 3] } });
    expect(fixture.fallback!.gemini.requests.length - fallbackCalls).toBe(1);
    expect(row).toMatchObject({ input_tokens: tokens(text), usage_source: 'local' });
    expect(charged).toBe(expectedCharge({ input: tokens(text), output: 0 }));
  });

  it(':embedContent that no channel serves: a 502 in Google\'s envelope, free', async () => {
    fixture.primary.gemini.enqueue({ json: exhausted });
    fixture.fallback!.gemini.enqueue({ json: exhausted });
    const text = 'The quick brown fox jumps over the lazy dog.';
    const { result, charged } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:embedContent`, { content: { parts: [{ text }] } }));
    expect(result!.status).toBe(502);
    expect(result!.json.error).toMatchObject({ code: 502, message: expect.stringContaining('Resource has been exhausted') });
    expect(tokens(text)).toBeGreaterThan(0);
    expect(charged).toBe(0);
  });

  it(':batchEmbedContents through @google/genai that no channel serves: the SDK\'s 502, free', async () => {
    fixture.primary.gemini.enqueue({ json: suspended });
    fixture.fallback!.gemini.enqueue({ json: suspended });
    const { error, charged } = await booked(fixture, () => fixture.sdk.gemini.models.embedContent({ model: modelOf.gemini, contents: ['first text to embed', 'second text to embed'] }));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(502);
    expect(charged).toBe(0);
  });
});
