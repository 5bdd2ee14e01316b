import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { createSseDecoder, type SseEvent } from '../../streaming/decode-sse.js';
import { createTestContext } from '../test-support/create-test-context.js';
import { expectGolden, toJsonLines } from '../test-support/expect-golden.js';
import { createOpenaiChatStreamEncoder, encodeOpenaiChatStreamError } from './encode-openai-chat-stream.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

const scenarioDirectory = join(import.meta.dirname, '..', 'scenarios');
const scenarios = readdirSync(scenarioDirectory)
  .filter((name) => name.endsWith('.parts.jsonl'))
  .map((name) => name.replace('.parts.jsonl', ''));

function readScenario(name: string): CanonicalStreamPart[] {
  return readFileSync(join(scenarioDirectory, `${name}.parts.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CanonicalStreamPart);
}

function encode(parts: CanonicalStreamPart[], includeUsage: boolean): { text: string; warnings: string[] } {
  const encoder = createOpenaiChatStreamEncoder(createTestContext('client-model'), { includeUsage });
  const text = parts.map((part) => encoder.encode(part)).join('') + encoder.end();
  return { text, warnings: encoder.warnings };
}

function toEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = createSseDecoder({ maxEventBytes: 1 << 20, onEvent: (event) => events.push(event) });
  decoder.push(new TextEncoder().encode(text));
  decoder.end();
  return events;
}

/** One event per line: `{ event, data }` with the data parsed when it is JSON (`[DONE]` stays text). */
function toGoldenLines(text: string): string {
  return toJsonLines(
    toEvents(text).map((event) => {
      let data: unknown = event.data;
      try {
        data = JSON.parse(event.data);
      } catch {
        // `[DONE]`
      }
      return { event: event.event ?? null, data };
    }),
  );
}

describe('createOpenaiChatStreamEncoder', () => {
  it.each(scenarios)('encodes the %s scenario as its golden file says', (name) => {
    const { text, warnings } = encode(readScenario(name), true);
    expectGolden(goldenFolder, `encode-${name}.jsonl`, toGoldenLines(text));
    expect(warnings).toEqual(name === 'thinking' ? ['a reasoning signature cannot be expressed in Chat Completions; dropped'] : []);
  });

  it('leaves usage out of every chunk when the client did not ask for it', () => {
    const events = toEvents(encode(readScenario('text'), false).text);
    expect(events.map((event) => event.data).at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as Record<string, unknown>);
    expect(chunks.every((chunk) => !('usage' in chunk))).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [{ delta: {}, finish_reason: 'stop' }] });
  });

  it('falls back to the last usage part when finish carries none', () => {
    const parts = readScenario('text').map((part) => (part.type === 'finish' ? { ...part, usage: undefined } : part));
    const chunks = toEvents(encode(parts, true).text).slice(0, -1).map((event) => JSON.parse(event.data) as Record<string, unknown>);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 25, completion_tokens: 12, total_tokens: 37 } });
  });

  it('sends an error as an `{ error }` event, which the OpenAI SDKs raise, in OpenAI\'s words rather than the vendor\'s', () => {
    const encoder = createOpenaiChatStreamEncoder(createTestContext(), { includeUsage: false });
    encoder.encode({ type: 'start', id: 'gen_1', model: 'm', created: 1 });
    expect(toEvents(encoder.encode({ type: 'error', message: 'Overloaded', code: 'overloaded_error' }))[0]?.data).toBe(
      '{"error":{"message":"Overloaded","type":"server_error","param":null,"code":"server_is_overloaded"}}',
    );
  });

  it.each([
    ['RESOURCE_EXHAUSTED', 'rate_limit_error', 'rate_limit_exceeded'],
    ['UNAVAILABLE', 'server_error', 'server_is_overloaded'],
    ['rate_limit_error', 'rate_limit_error', 'rate_limit_exceeded'],
    ['billing_error', 'server_error', null],
    ['insufficient_quota', 'server_error', null],
    ['invalid_request_error', 'invalid_request_error', null],
    ['api_error', 'server_error', null],
    ['context_length_exceeded', 'invalid_request_error', 'context_length_exceeded'],
    ['stream_interrupted', 'server_error', 'stream_interrupted'],
    ['invalid_chunk', 'server_error', 'invalid_chunk'],
    ['authentication_error', 'server_error', null],
  ])('writes the %s error as type %s, code %s', (code, type, openaiCode) => {
    expect(JSON.parse(toEvents(encodeOpenaiChatStreamError('m', code))[0]?.data ?? '')).toEqual({ error: { message: 'm', type, param: null, code: openaiCode } });
  });

  it('sends refusal text as delta.refusal, not content', () => {
    const encoder = createOpenaiChatStreamEncoder(createTestContext(), { includeUsage: false });
    encoder.encode({ type: 'start', id: 'gen_1', model: 'm', created: 1 });
    const [event] = toEvents(encoder.encode({ type: 'text-delta', text: 'No.', refusal: true }));
    expect(JSON.parse(event?.data ?? '')).toMatchObject({ choices: [{ delta: { refusal: 'No.' } }] });
  });

  it('writes no finish chunk after an error (the usage chunk and [DONE] still come), as OpenAI ends a failed stream', () => {
    const encoder = createOpenaiChatStreamEncoder(createTestContext(), { includeUsage: true });
    encoder.encode({ type: 'start', id: 'gen_1', model: 'm', created: 1 });
    encoder.encode({ type: 'text-delta', text: 'Half' });
    encoder.encode({ type: 'error', message: 'Overloaded', code: undefined });
    const after = encoder.encode({ type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: { input: { total: 5, cacheRead: 0, cacheWrite: 0 }, output: { total: 1, reasoning: 0 } } }) + encoder.end();
    const chunks = toEvents(after).map((event) => event.data);
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.slice(0, -1).map((data) => JSON.parse(data) as { choices: unknown[] })).toEqual([expect.objectContaining({ choices: [], usage: expect.objectContaining({ prompt_tokens: 5 }) })]);
  });

  it('gives the stream a fresh chatcmpl id when the upstream had none, and the clock when it had no time', () => {
    const encoder = createOpenaiChatStreamEncoder(createTestContext(), { includeUsage: false });
    expect(JSON.parse(toEvents(encoder.encode({ type: 'start', id: '', model: 'm', created: 0 }))[0]?.data ?? '')).toMatchObject({ id: 'chatcmpl-1', created: 1760000000 });
  });

  it('ends with [DONE] once', () => {
    const encoder = createOpenaiChatStreamEncoder(createTestContext(), { includeUsage: false });
    expect(encoder.end()).toBe('data: [DONE]\n\n');
    expect(encoder.end()).toBe('');
  });
});

describe('createOpenaiChatStreamEncoder thought signatures of a Gemini upstream', () => {
  const parts: CanonicalStreamPart[] = [
    { type: 'start', id: 'r1', model: 'm', created: 1 },
    { type: 'reasoning-delta', text: 'Think.' },
    { type: 'reasoning-signature', signature: 'GSIG1' },
    { type: 'tool-call-start', index: 0, id: 'c1', name: 'get_weather' },
    { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
    { type: 'tool-call-end', index: 0 },
    { type: 'tool-call-start', index: 1, id: 'c2', name: 'get_time' },
    { type: 'tool-call-end', index: 1 },
    { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'STOP' }, usage: undefined },
  ];
  const firstFragments = (text: string) =>
    toEvents(text)
      .filter((event) => event.data !== '[DONE]')
      .flatMap((event) => (JSON.parse(event.data) as { choices: { delta: { tool_calls?: Record<string, unknown>[] } }[] }).choices[0]?.delta.tool_calls ?? [])
      .filter((fragment) => fragment.id !== undefined);

  it("writes the signature on the first fragment of the call that follows it, as Google's OpenAI-compatible endpoint does", () => {
    const encoder = createOpenaiChatStreamEncoder({ ...createTestContext(), thoughtSignaturesOnToolCalls: true }, { includeUsage: false });
    const text = parts.map((part) => encoder.encode(part)).join('') + encoder.end();
    expect(firstFragments(text)).toEqual([
      { index: 0, id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '' }, extra_content: { google: { thought_signature: 'GSIG1' } } },
      { index: 1, id: 'c2', type: 'function', function: { name: 'get_time', arguments: '' } },
    ]);
    expect(encoder.warnings).toEqual([]);
  });

  it('drops it, with a warning, for another upstream, or when text comes before the call', () => {
    const other = createOpenaiChatStreamEncoder(createTestContext(), { includeUsage: false });
    expect(firstFragments(parts.map((part) => other.encode(part)).join(''))[0]).not.toHaveProperty('extra_content');
    expect(other.warnings).toEqual(['a reasoning signature cannot be expressed in Chat Completions; dropped']);
    const gemini = createOpenaiChatStreamEncoder({ ...createTestContext(), thoughtSignaturesOnToolCalls: true }, { includeUsage: false });
    const withText: CanonicalStreamPart[] = [...parts.slice(0, 3), { type: 'text-delta', text: 'Checking.' }, ...parts.slice(3)];
    expect(firstFragments(withText.map((part) => gemini.encode(part)).join(''))[0]).not.toHaveProperty('extra_content');
    expect(gemini.warnings).toEqual(['a reasoning signature cannot be expressed in Chat Completions; dropped']);
  });
});
