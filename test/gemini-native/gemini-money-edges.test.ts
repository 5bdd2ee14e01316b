/**
 * Audit probes (native Gemini routes, money): reservation for several candidates, usage fields of a
 * passthrough stream, an upstream that answers a JSON array (no SSE).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, geminiRaw } from '../gemini-native/gemini-support.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const chunk = (text: string, usage: Record<string, unknown> | undefined, finish?: string) => ({
  data: {
    candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(finish ? { finishReason: finish } : {}), index: 0 }],
    ...(usage ? { usageMetadata: usage } : {}),
    modelVersion: 'gemini-2.5-flash',
    responseId: 'r1',
  },
});

describe('gemini passthrough stream: every usage field billed', () => {
  it('thoughts as output, toolUsePrompt as input, cachedContent as cache read', async () => {
    const usage = { promptTokenCount: 1000, cachedContentTokenCount: 600, toolUsePromptTokenCount: 300, candidatesTokenCount: 50, thoughtsTokenCount: 200, totalTokenCount: 1550 };
    fixture.primary.gemini.enqueue({ sse: [chunk('Hello', { promptTokenCount: 1000, totalTokenCount: 1000 }), chunk(' there', usage, 'STOP')], crlf: true });
    const { charged, row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:streamGenerateContent?alt=sse`, { contents: [{ parts: [{ text: 'Say hello' }] }] }));
    expect(row.usage_source).toBe('upstream');
    expect(charged).toBe(expectedCharge({ input: 1300, cacheRead: 600, output: 250 }));
  });
});

describe('gemini upstream that answers the JSON array (ignores alt=sse)', () => {
  it('streamGenerateContent passthrough: the answer is billed at its usage, not the prompt alone', async () => {
    const usage = { promptTokenCount: 40, candidatesTokenCount: 3000, totalTokenCount: 3040 };
    const array = [chunk('Hello', undefined).data, chunk(' there', usage, 'STOP').data];
    fixture.primary.gemini.enqueue({ json: array });
    const { charged, row, result } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:streamGenerateContent`, { contents: [{ parts: [{ text: 'Say hello' }] }] }));
    expect(result!.status).toBe(200);
    expect({ source: row.usage_source, charged }).toEqual({ source: 'upstream', charged: expectedCharge({ input: 40, output: 3000 }) });
  });
});

describe('gemini candidateCount > 1 reserves every candidate (as chat n > 1 does)', () => {
  let small: BillingFixture;
  beforeAll(async () => {
    // Output 15 $/M × 0.5 units/($·tok/M) = 7.5 units a token: 1000 tokens ≈ 7,500; 8 candidates ≈ 60,000.
    small = await startBillingFixture({ tokenQuota: 12_000, userQuota: 100_000_000 });
  });
  afterAll(async () => small?.close());

  it('a balance that covers one candidate but not 8 is refused (402) before any upstream call', async () => {
    const text = 'word '.repeat(1000).trim();
    const candidates = Array.from({ length: 8 }, (_, index) => ({ content: { parts: [{ text }], role: 'model' }, finishReason: 'MAX_TOKENS', index }));
    small.primary.gemini.enqueue({ sse: [{ data: { candidates, usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 8000, totalTokenCount: 8003 }, modelVersion: 'gemini-2.5-flash', responseId: 'r' } }], crlf: true });
    const calls = small.primary.gemini.requests.length;
    const answer = await geminiRaw(small.gateway.url, `/v1beta/models/${modelOf.gemini}:generateContent`, { contents: [{ parts: [{ text: 'Say hello' }] }], generationConfig: { candidateCount: 8, maxOutputTokens: 1000 } });
    await small.settled();
    const balances = await small.balances();
    expect({ status: answer.status, upstreamCalls: small.primary.gemini.requests.length - calls, used: balances.tokenUsed }).toEqual({ status: 402, upstreamCalls: 0, used: 0 });
  });
});
