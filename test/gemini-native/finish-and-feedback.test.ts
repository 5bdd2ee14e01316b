import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import type { ScriptedReply } from '../fakes/scripted-upstream.js';
import { chatWhole, responsesWhole } from '../fakes/scripted-vendor-wire.js';
import { booked, geminiRaw, sseData } from './gemini-support.js';

/**
 * finishReason values a Gemini client reads from each upstream; Gemini's own non-STOP endings
 * (MALFORMED_FUNCTION_CALL, RECITATION, a blocked prompt) behind a non-streaming client, which the gateway
 * converts (docs/behaviour.md: the Gemini upstream is always called with SSE and the answer collected).
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const geminiEvents = (...events: unknown[]): ScriptedReply => ({ sse: events.map((data) => ({ data })), crlf: true });
const usage = (prompt: number, candidates: number) => ({ promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates });

describe('finishReason from each upstream style', () => {
  it('openai-chat content_filter → SAFETY', async () => {
    const reply = chatWhole({ text: 'I can', usage: { input: 5, output: 2 } });
    (reply.json as any).choices[0].finish_reason = 'content_filter';
    fixture.primary['openai-chat'].enqueue(reply);
    const response = await fixture.sdk.gemini.models.generateContent({ model: modelOf['openai-chat'], contents: 'x' });
    expect(response.candidates?.[0]?.finishReason).toBe('SAFETY');
  });

  it('openai-responses incomplete (max_output_tokens) → MAX_TOKENS', async () => {
    fixture.primary['openai-responses'].enqueue(responsesWhole({ text: 'Once upon', stop: 'length', usage: { input: 5, output: 2 } }));
    const response = await fixture.sdk.gemini.models.generateContent({ model: modelOf['openai-responses'], contents: 'x', config: { maxOutputTokens: 16 } });
    expect(response.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(response.text).toBe('Once upon');
  });

  it('anthropic model_context_window_exceeded → MAX_TOKENS', async () => {
    fixture.primary.anthropic.enqueue({
      json: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: 'Long' }], stop_reason: 'model_context_window_exceeded', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } },
    });
    const response = await fixture.sdk.gemini.models.generateContent({ model: modelOf.anthropic, contents: 'x' });
    expect(response.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
  });
});

describe('Gemini upstream endings behind a non-streaming Gemini client', () => {
  it('MALFORMED_FUNCTION_CALL keeps its value, billed at the reported usage', async () => {
    fixture.primary.gemini.enqueue(geminiEvents({ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'MALFORMED_FUNCTION_CALL', index: 0 }], usageMetadata: usage(40, 3), modelVersion: 'gemini-2.5-flash', responseId: 'r1' }));
    const { result, charged } = await booked(fixture, () => fixture.sdk.gemini.models.generateContent({ model: modelOf.gemini, contents: 'call a tool' }));
    expect(result!.candidates?.[0]?.finishReason).toBe('MALFORMED_FUNCTION_CALL');
    expect(charged).toBe(expectedCharge({ input: 40, output: 3 }));
  });

  it('RECITATION after some text keeps the text and the reason', async () => {
    fixture.primary.gemini.enqueue(
      geminiEvents(
        { candidates: [{ content: { role: 'model', parts: [{ text: 'To be or' }] }, index: 0 }], modelVersion: 'gemini-2.5-flash', responseId: 'r2' },
        { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'RECITATION', index: 0 }], usageMetadata: usage(10, 4), modelVersion: 'gemini-2.5-flash', responseId: 'r2' },
      ),
    );
    const response = await fixture.sdk.gemini.models.generateContent({ model: modelOf.gemini, contents: 'Hamlet' });
    expect(response.text).toBe('To be or');
    expect(response.candidates?.[0]?.finishReason).toBe('RECITATION');
  });

  /**
   * Google answers a blocked prompt with no candidates and `promptFeedback.blockReason`
   * (ai.google.dev/api/generate-content#PromptFeedback); @google/genai apps check
   * `response.promptFeedback?.blockReason`. Through the alt=sse passthrough it arrives as sent.
   */
  const blocked = { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 }, modelVersion: 'gemini-2.5-flash', responseId: 'r3' };

  it('a blocked prompt, streamed with alt=sse (passthrough): promptFeedback arrives', async () => {
    fixture.primary.gemini.enqueue(geminiEvents(blocked));
    const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:streamGenerateContent?alt=sse`, { contents: [{ parts: [{ text: 'bad' }] }] });
    expect(answer.status).toBe(200);
    expect(sseData(answer.text)[0].promptFeedback).toEqual({ blockReason: 'PROHIBITED_CONTENT' });
  });

  it('a blocked prompt, non-streaming (the merged answer): promptFeedback.blockReason still reaches the SDK', async () => {
    fixture.primary.gemini.enqueue(geminiEvents(blocked));
    const { result, charged } = await booked(fixture, () => fixture.sdk.gemini.models.generateContent({ model: modelOf.gemini, contents: 'bad' }));
    expect(charged).toBe(expectedCharge({ input: 12, output: 0 }));
    expect(result!.promptFeedback?.blockReason, `got ${JSON.stringify(result)}`).toBe('PROHIBITED_CONTENT');
  });
});

describe('candidateCount > 1', () => {
  it('to a converted upstream: one candidate comes back, the drop is logged, billed at the usage', async () => {
    fixture.primary['openai-chat'].enqueue(chatWhole({ text: 'One', usage: { input: 8, output: 1 } }));
    const { result, row, charged } = await booked(fixture, () => fixture.sdk.gemini.models.generateContent({ model: modelOf['openai-chat'], contents: 'x', config: { candidateCount: 2 } }));
    expect(result!.candidates).toHaveLength(1);
    expect(String(row.warnings)).toContain('candidateCount');
    expect(charged).toBe(expectedCharge({ input: 8, output: 1 }));
  });

  it('to a Gemini upstream streamed with alt=sse (passthrough): both candidates arrive, billed at usageMetadata (both counted)', async () => {
    fixture.primary.gemini.enqueue(
      geminiEvents(
        {
          candidates: [
            { content: { role: 'model', parts: [{ text: 'A' }] }, finishReason: 'STOP', index: 0 },
            { content: { role: 'model', parts: [{ text: 'B' }] }, finishReason: 'STOP', index: 1 },
          ],
          usageMetadata: usage(6, 2),
          modelVersion: 'gemini-2.5-flash',
          responseId: 'r4',
        },
      ),
    );
    const { result, charged } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:streamGenerateContent?alt=sse`, { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { candidateCount: 2 } }));
    expect(sseData(result!.text)[0].candidates).toHaveLength(2);
    expect(fixture.primary.gemini.requests.at(-1)!.body.generationConfig.candidateCount).toBe(2);
    expect(charged).toBe(expectedCharge({ input: 6, output: 2 }));
  });
});
