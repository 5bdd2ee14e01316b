/**
 * From the review of the Gemini interim reports: a Gemini 2.0-class stream whose chunks carry the prompt
 * count alone, grounded by Google Search and cut after its grounding, bills the search with its reported
 * input and the produced text counted locally (the interim report carries the searches run so far).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamErrorEvent } from '../fakes/scripted-vendor-wire.js';
import { modelOf, startBillingFixture, type BillingFixture } from './billing-fixture.js';
import { booked, geminiRaw } from '../gemini-native/gemini-support.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, extraPrice: { web_search: 0.01 }, env: { RETRY_TIMES: '0' } });
});
afterAll(async () => fixture?.close());

const interim = { promptTokenCount: 300, totalTokenCount: 300 };
const chunk = (text: string, extra: Record<string, unknown> = {}) => ({ data: { candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0, ...extra }], usageMetadata: interim, modelVersion: 'gemini-2.0-flash', responseId: 'r' } });
const path = `/v1beta/models/${modelOf.gemini}:streamGenerateContent?alt=sse`;

describe('a grounded Gemini 2.0 stream cut after its grounding, interim reports without output counts', () => {
  it('bills the grounded prompt\'s search (as it did when the interim report was a usage part)', async () => {
    fixture.primary.gemini.enqueue({ crlf: true, sse: [
      chunk('It is ', { groundingMetadata: { webSearchQueries: ['weather paris'] } }),
      chunk('sunny in Paris today.'),
      streamErrorEvent('gemini', 'Overloaded'),
    ] });
    const { row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, path, { contents: [{ parts: [{ text: 'Weather in Paris?' }] }], tools: [{ googleSearch: {} }] }));
    expect(Number(row.web_search_calls)).toBe(1);
  });
});
