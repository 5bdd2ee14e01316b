import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { replyFor, streamErrorEvent } from '../fakes/scripted-vendor-wire.js';
import { booked, geminiRaw } from './gemini-support.js';

/**
 * Gemini's streamed JSON array (no alt=sse) when the upstream fails mid-stream; an action the gateway does
 * not route (`:predict`) answers a clear error in Google's envelope; the SDK with apiVersion v1 reaches the
 * same routes.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

describe('JSON-array framing', () => {
  it('anthropic upstream overloads mid-stream: the body is one JSON array ending with the error object', async () => {
    const reply = replyFor('anthropic', { text: 'Partial answer here', usage: { input: 10, output: 5 } }, true);
    const events = reply.sse!;
    const cut = events.findIndex((event) => (event.data as any).type === 'content_block_stop');
    fixture.primary.anthropic.enqueue({ sse: [...events.slice(0, cut), streamErrorEvent('anthropic', 'Overloaded')] });
    const { result } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.anthropic}:streamGenerateContent`, { contents: [{ parts: [{ text: 'x' }] }] }));
    expect(result!.status).toBe(200);
    const array = JSON.parse(result!.text);
    expect(Array.isArray(array)).toBe(true);
    expect(array.at(-1).error).toMatchObject({ message: 'Overloaded', status: 'UNAVAILABLE' });
    expect(array.slice(0, -1).map((chunk: any) => chunk.candidates[0].content.parts[0].text).join('')).toBe('Partial answer here');
  });

  it('gemini upstream (events re-framed as array elements): a valid array whose last element has finishReason and usage', async () => {
    fixture.primary.gemini.enqueue(replyFor('gemini', { text: 'Hello there', usage: { input: 4, output: 2 } }, true));
    const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:streamGenerateContent`, { contents: [{ parts: [{ text: 'x' }] }] });
    const array = JSON.parse(answer.text);
    expect(array.at(-1).candidates[0].finishReason).toBe('STOP');
    expect(array.at(-1).usageMetadata).toMatchObject({ promptTokenCount: 4, totalTokenCount: 6 });
  });
});

describe('actions that are not routed', () => {
  it(':predict (Imagen) → 501 UNIMPLEMENTED in Google\'s envelope, nothing charged, no upstream call', async () => {
    const calls = Object.values(fixture.primary).reduce((sum, upstream) => sum + upstream.requests.length, 0);
    const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:predict`, { instances: [{ prompt: 'a cat' }] });
    expect(answer.status).toBe(501);
    expect(answer.json.error).toMatchObject({ code: 501, status: 'UNIMPLEMENTED' });
    expect(Object.values(fixture.primary).reduce((sum, upstream) => sum + upstream.requests.length, 0)).toBe(calls);
  });
});

describe('@google/genai with apiVersion v1', () => {
  it('generateContent, generateContentStream and models.get go to /v1/models/… and work', async () => {
    const v1 = new GoogleGenAI({ apiKey: callerKey, httpOptions: { baseUrl: fixture.gateway.url, apiVersion: 'v1' } });
    expect((await v1.models.generateContent({ model: modelOf['openai-chat'], contents: 'hi' })).text).toBe('Hello');
    let text = '';
    for await (const chunk of await v1.models.generateContentStream({ model: modelOf.anthropic, contents: 'hi' })) text += chunk.text ?? '';
    expect(text).toBe('Hello');
    expect((await v1.models.get({ model: modelOf.gemini })).name).toBe(`models/${modelOf.gemini}`);
  });
});
