import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SseEvent } from '../fakes/scripted-upstream.js';
import { anthropicStream, chatStream, geminiStream, responsesStream } from '../fakes/scripted-vendor-wire.js';
import { callerKey, M, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';

/**
 * Keep-alive pings (docs/behaviour.md "Streaming", STREAM_KEEPALIVE_SECONDS): a stream silent toward its
 * client for a period gets an SSE comment, so a proxy that cuts idle connections (nginx and AWS at 60 s,
 * Cloudflare at 100 s) lets a thinking model's stream live. Here the period is 1 s and each upstream goes
 * silent for 2.6 s after its opening events; the official SDKs read the answer as if nothing was there.
 */
let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture({ STREAM_KEEPALIVE_SECONDS: '1' });
});
afterAll(async () => fixture?.close());

const silenceMs = 2600;

/** The events written as the vendor frames them, in two writes with the silence between. */
function withSilenceAfter(events: SseEvent[], opening: number, crlf = false) {
  const end = crlf ? '\r\n' : '\n';
  const frame = (part: SseEvent[]) => part.map((event) => `${event.event === undefined ? '' : `event: ${event.event}${end}`}data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}${end}${end}`).join('');
  return { raw: [frame(events.slice(0, opening)), frame(events.slice(opening))], delayMs: silenceMs };
}

const answer = { text: 'Thought it over.', usage: { input: 5, output: 4 } };

/** A raw streaming request: the body as text and when the response headers came. */
async function rawStream(path: string, body: unknown, headers: Record<string, string> = {}) {
  const sentAt = Date.now();
  const response = await fetch(`${fixture.gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'x-api-key': callerKey, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const headersAfterMs = Date.now() - sentAt;
  return { status: response.status, headersAfterMs, text: await response.text() };
}

describe('keep-alive pings on a silent stream', () => {
  it('Chat pass-through: a comment goes out during the silence; the openai SDK reads the answer whole', async () => {
    const events = chatStream(answer).sse!;
    fixture.upstream.enqueue(withSilenceAfter(events, 1));
    const raw = await rawStream('/v1/chat/completions', { model: M.chat, stream: true, messages: [{ role: 'user', content: 'think' }] });
    expect(raw.status).toBe(200);
    expect(raw.text).toMatch(/data: \{[^\n]*\n\n: keep-alive\n\n/);
    expect(raw.text.match(/: keep-alive\n\n/g)?.length).toBeGreaterThanOrEqual(1);

    fixture.upstream.enqueue(withSilenceAfter(events, 1));
    let text = '';
    for await (const chunk of await fixture.openai.chat.completions.create({ model: M.chat, stream: true, messages: [{ role: 'user', content: 'think' }] })) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(answer.text);
  });

  it('Anthropic pass-through: the held message_start goes out with the first ping (headers before the content), and the SDK reads the message', async () => {
    const events = anthropicStream(answer).sse!;
    fixture.upstream.enqueue(withSilenceAfter(events, 1));
    const raw = await rawStream('/v1/messages', { model: M.anthropic, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'think' }] }, { 'anthropic-version': '2023-06-01' });
    expect(raw.status).toBe(200);
    expect(raw.headersAfterMs).toBeLessThan(silenceMs);
    expect(raw.text.indexOf('event: message_start')).toBeLessThan(raw.text.indexOf(': keep-alive'));
    expect(raw.text.indexOf(': keep-alive')).toBeLessThan(raw.text.indexOf('content_block_delta'));

    fixture.upstream.enqueue(withSilenceAfter(events, 1));
    const message = await fixture.anthropic.messages.stream({ model: M.anthropic, max_tokens: 100, messages: [{ role: 'user', content: 'think' }] }).finalMessage();
    expect(message.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual([answer.text]);
  });

  it('a converted stream (Responses client, Anthropic upstream): pinged, and the SDK finishes the response', async () => {
    fixture.upstream.enqueue(withSilenceAfter(anthropicStream(answer).sse!, 1));
    const final = await fixture.openai.responses.stream({ model: M.anthropic, input: 'think' }).finalResponse();
    expect(final.output_text).toBe(answer.text);
    fixture.upstream.enqueue(withSilenceAfter(anthropicStream(answer).sse!, 1));
    const raw = await rawStream('/v1/responses', { model: M.anthropic, input: 'think', stream: true });
    expect(raw.text).toContain(': keep-alive\n\n');
  });

  it('Gemini pass-through (alt=sse): the @google/genai SDK reads the pinged stream', async () => {
    fixture.upstream.enqueue(withSilenceAfter(geminiStream(answer).sse!, 1, true));
    let text = '';
    for await (const chunk of await fixture.gemini.models.generateContentStream({ model: M.gemini, contents: 'think' })) text += chunk.text ?? '';
    expect(text).toBe(answer.text);
    fixture.upstream.enqueue(withSilenceAfter(geminiStream(answer).sse!, 1, true));
    const raw = await rawStream(`/v1beta/models/${M.gemini}:streamGenerateContent?alt=sse`, { contents: [{ role: 'user', parts: [{ text: 'think' }] }] }, { 'x-goog-api-key': callerKey });
    expect(raw.text).toContain(': keep-alive\n\n');
  });

  it('a Responses pass-through stream: the SDK reads it; a stream that never falls silent gets no ping', async () => {
    fixture.upstream.enqueue(withSilenceAfter(responsesStream(answer).sse!, 2));
    const final = await fixture.openai.responses.stream({ model: M.responses, input: 'think' }).finalResponse();
    expect(final.output_text).toBe(answer.text);
    fixture.upstream.enqueue({ sse: chatStream(answer).sse! });
    const raw = await rawStream('/v1/chat/completions', { model: M.chat, stream: true, messages: [{ role: 'user', content: 'quick' }] });
    expect(raw.text).not.toContain('keep-alive');
  });
});
