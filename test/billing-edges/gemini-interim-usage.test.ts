/**
 * A Gemini stream whose chunks carry usageMetadata without output counts (`promptTokenCount` and
 * `totalTokenCount` only, as Gemini 2.0-class streams and some relays send on every chunk but the last) and
 * that ends before its last chunk — the client leaves, the upstream fails in-band or resets. Such a report
 * is the input, not a final usage of 0 output: docs/behaviour.md "Billing" bills a stream that broke off
 * before its final usage the reported input plus the produced text counted locally, for a Gemini client
 * (SSE, JSON array, whole) and for a client of another style in front of the Gemini channel (whose shown
 * usage is what it is billed). Reports that do count output are still billed as reported.
 * (From the Gemini audit: these requests were billed 1000 input and 0 output.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientRequest, callerKey, modelOf, readSse, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';
import { streamErrorEvent } from '../fakes/scripted-vendor-wire.js';
import { booked, geminiRaw } from '../gemini-native/gemini-support.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { RETRY_TIMES: '0' } });
});
afterAll(async () => fixture?.close());

const piece = 'The quick brown fox jumps over the lazy dog and keeps on running through the field. ';
const pieces = Array.from({ length: 6 }, () => piece);
const produced = pieces.join('');
const interim = { promptTokenCount: 1000, totalTokenCount: 1000 };
const chunk = (text: string) => ({ data: { candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }], usageMetadata: interim, modelVersion: 'gemini-2.0-flash', responseId: 'r-int' } });
const billedProduced = (row: any) => ({ source: row.usage_source, input: Number(row.input_tokens), output: Number(row.output_tokens) });
const expected = { source: 'local', input: 1000, output: tokens(produced) };

async function readThenAbort(path: string, events: number): Promise<string> {
  const controller = new AbortController();
  const response = await fetch(`${fixture.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': callerKey },
    body: JSON.stringify({ contents: [{ parts: [{ text: 'Tell me a story' }] }] }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while ((text.match(/The quick/g) ?? []).length < events) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  return text;
}

const streamPath = `/v1beta/models/${modelOf.gemini}:streamGenerateContent?alt=sse`;
const body = { contents: [{ parts: [{ text: 'Tell me a story' }] }] };

describe('a Gemini stream that ends before its final usage, its interim reports without output counts', () => {
  it('client leaves mid-stream (alt=sse): the reported input and the delivered text are billed', async () => {
    fixture.primary.gemini.enqueue({ sse: pieces.map(chunk), crlf: true, ending: 'hang' });
    const { result, row } = await booked(fixture, () => readThenAbort(streamPath, pieces.length));
    expect((result!.match(/The quick/g) ?? []).length).toBe(pieces.length);
    expect(billedProduced(row)).toEqual(expected);
  });

  it('client leaves mid-stream (JSON array, no alt=sse): the reported input and the delivered text are billed', async () => {
    fixture.primary.gemini.enqueue({ sse: pieces.map(chunk), crlf: true, ending: 'hang' });
    const { row } = await booked(fixture, () => readThenAbort(`/v1beta/models/${modelOf.gemini}:streamGenerateContent`, pieces.length));
    expect(billedProduced(row)).toEqual(expected);
  });

  it('upstream fails in-band after the text (alt=sse): the produced text is billed', async () => {
    fixture.primary.gemini.enqueue({ sse: [...pieces.map(chunk), streamErrorEvent('gemini', 'Overloaded')], crlf: true });
    const { row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, streamPath, body));
    expect(billedProduced(row)).toEqual(expected);
  });

  it('upstream connection reset after the text (alt=sse): the produced text is billed', async () => {
    fixture.primary.gemini.enqueue({ sse: pieces.map(chunk), crlf: true, ending: 'reset' });
    const { row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, streamPath, body).catch((error) => error));
    expect(billedProduced(row)).toEqual(expected);
  });

  it('non-streaming Gemini client, upstream in-band failure after the text: the produced text is billed', async () => {
    fixture.primary.gemini.enqueue({ sse: [...pieces.map(chunk), streamErrorEvent('gemini', 'Overloaded')], crlf: true });
    const { row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:generateContent`, body));
    expect(billedProduced(row)).toEqual(expected);
  });

  it('Chat client in front of the Gemini channel, upstream reset after the text: the produced text is billed', async () => {
    fixture.primary.gemini.enqueue({ sse: pieces.map(chunk), crlf: true, ending: 'reset' });
    const request = buildClientRequest(fixture.gateway.url, 'openai-chat', modelOf.gemini, true, 500);
    const { result, row } = await booked(fixture, async () => readSse(await fetch(request.url, request.init), 'openai-chat'));
    expect(result!.text).toBe(produced);
    expect(billedProduced(row)).toEqual(expected);
  });

  it('Responses client in front of the Gemini channel, upstream in-band failure after the text: shown the usage it is billed', async () => {
    fixture.primary.gemini.enqueue({ sse: [...pieces.map(chunk), streamErrorEvent('gemini', 'Overloaded')], crlf: true });
    const request = buildClientRequest(fixture.gateway.url, 'openai-responses', modelOf.gemini, true, 500);
    const { result, row } = await booked(fixture, async () => readSse(await fetch(request.url, request.init), 'openai-responses'));
    expect(billedProduced(row)).toEqual(expected);
    const failed = result!.events.map((data) => JSON.parse(data)).find((event) => event.type === 'response.failed');
    expect(failed?.response.usage).toMatchObject({ input_tokens: 1000, output_tokens: tokens(produced) });
  });

  it('interim reports WITH a running candidatesTokenCount are billed as reported', async () => {
    const withCount = (text: string, index: number) => ({ data: { ...chunk(text).data, usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: 100 * (index + 1), totalTokenCount: 1000 + 100 * (index + 1) } } });
    fixture.primary.gemini.enqueue({ sse: [...pieces.map(withCount), streamErrorEvent('gemini', 'Overloaded')], crlf: true });
    const { row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, streamPath, body));
    expect(billedProduced(row)).toEqual({ source: 'upstream', input: 1000, output: 600 });
  });

  it('a whole stream whose prompt-only reports end in a final one is billed that final report', async () => {
    const last = { data: { candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: 77, totalTokenCount: 1077 }, modelVersion: 'gemini-2.0-flash', responseId: 'r-int' } };
    fixture.primary.gemini.enqueue({ sse: [...pieces.map(chunk), last], crlf: true });
    const { row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, streamPath, body));
    expect(billedProduced(row)).toEqual({ source: 'upstream', input: 1000, output: 77 });
  });
});
