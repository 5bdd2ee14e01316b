import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import type { ScriptedReply } from '../fakes/scripted-upstream.js';

/**
 * A non-streaming Gemini client in front of a Gemini channel gets the upstream's streamed events merged
 * into one answer (docs/behaviour.md "Styles and conversion"). Thought signatures must survive that where
 * Gemini put them (ai.google.dev/gemini-api/docs/thought-signatures: the
 * first functionCall of a turn carries one and must be sent back on it; a text answer may carry one on its
 * last part), in the whole answer and again on the replayed turn of a chat session.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) => ({ candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], modelVersion: 'gemini-3-pro-preview', responseId: 'resp-sig' });
const stream = (...events: unknown[]): ScriptedReply => ({ sse: events.map((data) => ({ data })), crlf: true });
const usage = { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } };
const tools = [{ functionDeclarations: [{ name: 'f', parametersJsonSchema: { type: 'object', properties: {} } }, { name: 'g', parametersJsonSchema: { type: 'object', properties: {} } }] }];

describe('thought signatures behind a non-streaming Gemini client (Gemini upstream)', () => {
  it('parallel calls, the first signed: the whole answer keeps the signature on the first functionCall', async () => {
    fixture.primary.gemini.enqueue(stream(
      chunk([{ functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'SIG_F' }]),
      chunk([{ functionCall: { name: 'g', args: {} } }]),
      { ...chunk([{ text: '' }], { finishReason: 'STOP' }), ...usage },
    ));
    const response = await fixture.sdk.gemini.models.generateContent({ model: modelOf.gemini, contents: 'go', config: { tools } });
    const parts = (response.candidates?.[0]?.content?.parts ?? []).filter((part: any) => !(part.text === '' && part.thoughtSignature === undefined));
    expect(parts[0]).toMatchObject({ functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'SIG_F' });
    expect(parts[1]).toMatchObject({ functionCall: { name: 'g', args: {} } });
    expect(parts[1]!.thoughtSignature).toBeUndefined();
  });

  it('text whose last part is signed: the signature comes back, the text is whole', async () => {
    fixture.primary.gemini.enqueue(stream(
      chunk([{ text: 'Hello' }]),
      chunk([{ text: ' world', thoughtSignature: 'SIG_T' }]),
      { ...chunk([{ text: '' }], { finishReason: 'STOP' }), ...usage },
    ));
    const response = await fixture.sdk.gemini.models.generateContent({ model: modelOf.gemini, contents: 'hi' });
    expect(response.text).toBe('Hello world');
    const signatures = (response.candidates?.[0]?.content?.parts ?? []).map((part: any) => part.thoughtSignature).filter(Boolean);
    expect(signatures).toEqual(['SIG_T']);
  });

  it('chat session: the replayed model turn carries SIG_F on the first call and the functionResponses follow', async () => {
    fixture.primary.gemini.enqueue(stream(
      chunk([{ functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'SIG_F' }, { functionCall: { name: 'g', args: {} } }]),
      { ...chunk([{ text: '' }], { finishReason: 'STOP' }), ...usage },
    ));
    fixture.primary.gemini.enqueue(stream({ ...chunk([{ text: 'done' }], { finishReason: 'STOP' }), ...usage }));
    const chat = fixture.sdk.gemini.chats.create({ model: modelOf.gemini, config: { tools } });
    const first = await chat.sendMessage({ message: 'go' });
    const calls = first.functionCalls ?? [];
    expect(calls.map((call) => call.name)).toEqual(['f', 'g']);
    const second = await chat.sendMessage({ message: calls.map((call) => ({ functionResponse: { id: call.id, name: call.name, response: { output: 'ok' } } })) });
    expect(second.text).toBe('done');
    const sent = fixture.primary.gemini.requests.at(-1)!.body;
    expect(sent.contents.map((content: any) => content.role)).toEqual(['user', 'model', 'user']);
    const modelParts = sent.contents[1].parts.filter((part: any) => part.functionCall !== undefined);
    expect(modelParts[0]).toMatchObject({ functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'SIG_F' });
    expect(sent.contents[2].parts.map((part: any) => part.functionResponse?.name)).toEqual(['f', 'g']);
  });
});
