/**
 * `candidateCount` > 1 to a Gemini channel whose stream reports no usageMetadata (a relay that strips it,
 * or a stream cut before it): every candidate is produced text that reaches the Gemini client, and the
 * reservation covers them all, so docs/behaviour.md "Billing" (no reported usage → the prompt plus the
 * produced text counted locally) counts every candidate, not only the first the canonical stream carries.
 * (From the Gemini audit: two 201-token candidates were billed 201 output tokens.) The local count is of
 * all the text produced, one tally, so the two candidates' seam may join into one token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';
import { booked, geminiRaw, sseData } from '../gemini-native/gemini-support.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
const candidate = (index: number) => ({ content: { role: 'model', parts: [{ text }] }, index, finishReason: 'STOP' });
const body = { contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { candidateCount: 2 } };

describe('candidateCount 2 from a Gemini channel that reports no usage', () => {
  it('alt=sse passthrough: both candidates delivered, both counted as output', async () => {
    fixture.primary.gemini.enqueue({ sse: [{ data: { candidates: [candidate(0), candidate(1)], modelVersion: 'gemini-2.5-flash', responseId: 'r' } }], crlf: true });
    const { result, row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:streamGenerateContent?alt=sse`, body));
    expect(sseData(result!.text)[0].candidates).toHaveLength(2);
    expect({ source: row.usage_source, output: Number(row.output_tokens) }).toEqual({ source: 'local', output: tokens(text + text) });
  });

  it('non-streaming (merged): both candidates delivered, both counted as output', async () => {
    fixture.primary.gemini.enqueue({ sse: [{ data: { candidates: [candidate(0), candidate(1)], modelVersion: 'gemini-2.5-flash', responseId: 'r' } }], crlf: true });
    const { result, row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:generateContent`, body));
    expect(result!.json.candidates).toHaveLength(2);
    expect({ source: row.usage_source, output: Number(row.output_tokens) }).toEqual({ source: 'local', output: tokens(text + text) });
  });
});
