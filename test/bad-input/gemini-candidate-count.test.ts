/**
 * Gemini `generationConfig.candidateCount` (found by the type-confusion sweep): a Gemini request reserves
 * `candidateCount` times its output limit, and a count of 1e308 or 1e15 took the reservation past 2^53 — a
 * 500 "Internal server error." from compute-charge.ts's RangeError. Now Google's range (0–8) is checked
 * (400 INVALID_ARGUMENT naming the field), and a reservation past any amount the books hold (the snake_case
 * spelling, which the schema does not read) is a 402: nothing charged, no upstream call, either way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, send, startBadInputFixture, withoutCharge, type BadInputFixture } from './bad-input-fixture.js';

let f: BadInputFixture;
beforeAll(async () => {
  f = await startBadInputFixture();
});
afterAll(async () => {
  await f?.close();
});

const body = (config: Record<string, unknown>) => JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 16, ...config } });

describe('Gemini candidateCount out of range is refused (400, or 402), not a 500', () => {
  it.each([
    ['gemini channel, generateContent, candidateCount 1e308', models.gemini, 'generateContent', { candidateCount: 1e308 }],
    ['gemini channel, streamGenerateContent, candidateCount 1e308', models.gemini, 'streamGenerateContent?alt=sse', { candidateCount: 1e308 }],
    ['openai channel (converted), candidateCount 1e308', models.chat, 'generateContent', { candidateCount: 1e308 }],
    ['anthropic channel (converted), candidateCount 1e308', models.claude, 'generateContent', { candidateCount: 1e308 }],
    ['gemini channel, candidateCount 1e15 (finite: 16e15 tokens pass 2^53)', models.gemini, 'generateContent', { candidateCount: 1e15 }],
    ['snake_case candidate_count 1e308', models.gemini, 'generateContent', { candidate_count: 1e308 }],
  ])('%s → 400 INVALID_ARGUMENT naming candidateCount, no upstream call, no charge', async (_label, model, action, config) => {
    const sent = await withoutCharge(f, () => send(f, `/v1beta/models/${model}:${action}`, { body: body(config), headers: { 'x-goog-api-key': keys.good } }));
    // 400 (Google takes 1 to 8 candidates) is the clear answer; a 402 (a reservation no balance covers) is acceptable.
    expect([400, 402], sent.text).toContain(sent.status);
    const message = expectEnvelope(sent, 'gemini');
    if (sent.status === 400) expect(message).toMatch(/candidate/i);
  });
});
