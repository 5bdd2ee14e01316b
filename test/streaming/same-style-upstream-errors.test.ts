/**
 * An upstream's own mid-stream error on a same-style (pass-through) stream, and Google's bare error form
 * on every path, through the official SDKs where they read the stream:
 * - A Gemini client on a Gemini channel whose upstream writes `data: {"error": …}` after some text gets it
 *   bare, as Google writes it: @google/genai raises `ApiError` for that form only (a `data:` error it reads
 *   as a chunk without candidates, and ends normally with the partial text).
 * - A Gemini upstream that writes its error as a bare `{"error": …}` object (no `data:` field) is read as
 *   that error, not as a clean cut: every client gets the upstream's message and status (an Anthropic
 *   client `overloaded_error`, a Gemini client 503 `UNAVAILABLE`), and the log row records it.
 * - A Chat client on a Chat channel whose upstream sends an error chunk gets that chunk as the stream's
 *   only error (none of the gateway's after it), and the row records the upstream's message — also when
 *   `[DONE]` follows it, or the error sits beside a chunk's other keys (OpenRouter's form).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@google/genai';
import { geminiStream, replyFor, streamErrorEvent } from '../fakes/scripted-vendor-wire.js';
import { buildClientRequest, modelOf, promptText, startBillingFixture, styles, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { settledRow } from '../support/booked-request.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 10_000_000, userQuota: 10_000_000 });
});
afterAll(async () => fixture?.close());

describe('a Gemini client on a Gemini channel', () => {
  it('gets an upstream `data: {"error"}` event mid-answer bare: @google/genai raises ApiError 503 after the text', async () => {
    const reply = replyFor('gemini', { text: ['Hello', ' there'] }, true, { terminal: false });
    // Events 50 ms apart, after a warm-up: @google/genai raises ApiError only for an error object alone in
    // a network chunk (merged with the text before it, it raises "Incomplete JSON segment at the end").
    fixture.primary.gemini.enqueue(replyFor('gemini', { text: 'warm-up' }, true));
    for await (const _chunk of await fixture.sdk.gemini.models.generateContentStream({ model: modelOf.gemini, contents: [{ role: 'user', parts: [{ text: promptText }] }] }));
    fixture.primary.gemini.enqueue({ ...reply, sse: [...reply.sse!, streamErrorEvent('gemini', 'Upstream overloaded')], delayMs: 50 });
    await fixture.settled();
    const logsBefore = (await fixture.logs()).length;
    let text = '';
    let error: any;
    try {
      for await (const chunk of await fixture.sdk.gemini.models.generateContentStream({ model: modelOf.gemini, contents: [{ role: 'user', parts: [{ text: promptText }] }] })) text += chunk.text ?? '';
    } catch (caught) {
      error = caught;
    }
    expect(text).toBe('Hello there');
    expect(error).toBeInstanceOf(ApiError);
    expect(error?.status).toBe(503);
    expect(String(error?.message)).toContain('Upstream overloaded');
    expect((await settledRow(fixture, logsBefore)).error).toContain('Upstream overloaded');
  });
});

describe('a Gemini upstream that writes its mid-stream error as a bare JSON object', () => {
  for (const client of styles) {
    it(`${client} client: the upstream's message and status reach the client and the log`, async () => {
      const reply = geminiStream({ text: ['Hello', ' there'] }, { terminal: false });
      const raw = reply.sse!.map((event) => `data: ${JSON.stringify(event.data)}\r\n\r\n`);
      fixture.primary.gemini.enqueue({ raw: [...raw, '{"error":{"code":503,"message":"Upstream overloaded","status":"UNAVAILABLE"}}\r\n\r\n'], delayMs: 20 });
      const logsBefore = (await fixture.logs()).length;
      const request = buildClientRequest(fixture.gateway.url, client, modelOf.gemini, true, 500);
      const body = await (await fetch(request.url, request.init)).text();
      const row = await settledRow(fixture, logsBefore);
      expect(body).toContain('Hello');
      expect(body).toContain('Upstream overloaded');
      expect(body).not.toContain('stream_interrupted');
      if (client === 'anthropic') expect(body).toContain('overloaded_error');
      if (client === 'gemini') expect(body).toContain('"status":"UNAVAILABLE"');
      expect(row.error ?? '').toContain('Upstream overloaded');
    });
  }
});

describe('a Chat client on a Chat channel whose upstream sends an error chunk mid-answer', () => {
  const errorChunks = (body: string) => body.split('\n\n').filter((event) => event.includes('"error"'));

  it('gets the upstream error chunk as the only error, and the row records its message', async () => {
    const reply = replyFor('openai-chat', { text: ['Hello', ' there'] }, true, { terminal: false });
    fixture.primary['openai-chat'].enqueue({ ...reply, sse: [...reply.sse!, streamErrorEvent('openai-chat', 'Upstream overloaded')], delayMs: 10 });
    const logsBefore = (await fixture.logs()).length;
    const request = buildClientRequest(fixture.gateway.url, 'openai-chat', modelOf['openai-chat'], true, 500);
    const body = await (await fetch(request.url, request.init)).text();
    const row = await settledRow(fixture, logsBefore);
    expect(row.error).toContain('Upstream overloaded');
    expect(errorChunks(body)).toHaveLength(1);
    expect(body).not.toContain('stream_interrupted');
  });

  it('the openai SDK raises with the upstream message', async () => {
    const reply = replyFor('openai-chat', { text: ['Hello', ' there'] }, true, { terminal: false });
    fixture.primary['openai-chat'].enqueue({ ...reply, sse: [...reply.sse!, streamErrorEvent('openai-chat', 'Upstream overloaded')], delayMs: 10 });
    let text = '';
    let error: any;
    try {
      for await (const chunk of await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-chat'], stream: true, messages: [{ role: 'user', content: promptText }] })) text += chunk.choices[0]?.delta.content ?? '';
    } catch (caught) {
      error = caught;
    }
    expect(text).toBe('Hello there');
    expect(String(error?.message)).toContain('Upstream overloaded');
  });

  it('an error chunk followed by [DONE] is still recorded (not logged as a success)', async () => {
    const reply = replyFor('openai-chat', { text: ['Hello', ' there'] }, true, { terminal: false });
    fixture.primary['openai-chat'].enqueue({ ...reply, sse: [...reply.sse!, streamErrorEvent('openai-chat', 'Upstream overloaded'), { data: '[DONE]' }], delayMs: 10 });
    const logsBefore = (await fixture.logs()).length;
    const request = buildClientRequest(fixture.gateway.url, 'openai-chat', modelOf['openai-chat'], true, 500);
    await (await fetch(request.url, request.init)).text();
    const row = await settledRow(fixture, logsBefore);
    expect(row.error ?? '').toContain('Upstream overloaded');
  });

  it("an error beside a chunk's other keys (OpenRouter's form) is recorded", async () => {
    const reply = replyFor('openai-chat', { text: ['Hello', ' there'] }, true, { terminal: false });
    const failed = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: modelOf['openai-chat'], error: { code: 'server_error', message: 'Provider disconnected' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] };
    fixture.primary['openai-chat'].enqueue({ ...reply, sse: [...reply.sse!, { data: failed }, { data: '[DONE]' }], delayMs: 10 });
    const logsBefore = (await fixture.logs()).length;
    const request = buildClientRequest(fixture.gateway.url, 'openai-chat', modelOf['openai-chat'], true, 500);
    await (await fetch(request.url, request.init)).text();
    const row = await settledRow(fixture, logsBefore);
    expect(row.error ?? '').toContain('Provider disconnected');
  });
});
