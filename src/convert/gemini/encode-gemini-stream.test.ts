import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { createSseDecoder } from '../../streaming/decode-sse.js';
import { expectGolden, toJsonLines } from '../test-support/expect-golden.js';
import { createGeminiStreamDecoder } from './decode-gemini-stream.js';
import { createGeminiStreamEncoder } from './encode-gemini-stream.js';
import { fixedContext } from './test-support/fixed-context.js';

const scenarioFolder = new URL('../scenarios/', import.meta.url).pathname;
const goldenFolder = new URL('./__golden__/', import.meta.url);
const scenarios = readdirSync(scenarioFolder).filter((file) => file.endsWith('.parts.jsonl')).map((file) => file.replace('.parts.jsonl', ''));

function readScenario(name: string): CanonicalStreamPart[] {
  return readFileSync(`${scenarioFolder}${name}.parts.jsonl`, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CanonicalStreamPart);
}

function encode(parts: CanonicalStreamPart[]) {
  const encoder = createGeminiStreamEncoder(fixedContext('gemini-2.5-flash'));
  const text = parts.map((part) => encoder.encode(part)).join('') + encoder.end();
  return { text, warnings: encoder.warnings };
}

/** SSE text → `{event, data}` with data parsed, one per event. */
function toWireEvents(text: string): { event: string | null; data: unknown }[] {
  const events: { event: string | null; data: unknown }[] = [];
  const decoder = createSseDecoder({ maxEventBytes: 1 << 20, onEvent: (event) => events.push({ event: event.event ?? null, data: JSON.parse(event.data) }) });
  decoder.push(Buffer.from(text));
  decoder.end();
  return events;
}

describe('createGeminiStreamEncoder', () => {
  for (const scenario of scenarios) {
    it(`encodes the ${scenario} scenario into the golden Gemini events`, () => {
      const { text } = encode(readScenario(scenario));
      const actual = toJsonLines(toWireEvents(text));
      expectGolden(goldenFolder, `encode-${scenario}.jsonl`, actual);
    });
  }

  it('writes one data-only event per chunk, with no [DONE]', () => {
    const { text } = encode(readScenario('text'));
    expect(text.split('\n\n').filter(Boolean).every((frame) => frame.startsWith('data: {'))).toBe(true);
    expect(text).not.toContain('[DONE]');
  });

  it('puts the final usage and the finish reason on the last chunk', () => {
    const events = toWireEvents(encode(readScenario('cache-usage')).text);
    expect(events.at(-1)?.data).toMatchObject({
      candidates: [{ finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 2100, cachedContentTokenCount: 1800, candidatesTokenCount: 7, totalTokenCount: 2107 },
    });
  });

  it('warns that Gemini cannot show cache-write tokens', () => {
    expect(encode(readScenario('cache-usage')).warnings).toEqual(['usage: Gemini has no cache-write count; 200 cache-write tokens stay in promptTokenCount only']);
  });

  it('sends each tool call whole when it ends, while text keeps flowing', () => {
    const encoder = createGeminiStreamEncoder(fixedContext());
    encoder.encode({ type: 'start', id: 'r1', model: 'm', created: 0 });
    expect(encoder.encode({ type: 'tool-call-start', index: 0, id: 'call_1', name: 'lookup' })).toBe('');
    expect(encoder.encode({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"q":' })).toBe('');
    expect(encoder.encode({ type: 'text-delta', text: 'meanwhile' })).toContain('"text":"meanwhile"');
    encoder.encode({ type: 'tool-call-delta', index: 0, argumentsDelta: '"x"}' });
    const call = toWireEvents(encoder.encode({ type: 'tool-call-end', index: 0 }));
    expect(call[0]?.data).toMatchObject({ candidates: [{ content: { parts: [{ functionCall: { id: 'call_1', name: 'lookup', args: { q: 'x' } } }] } }] });
  });

  it('writes a Gemini signature back on the part it came with, so a decoded stream re-encodes as recorded', () => {
    const decoder = createGeminiStreamDecoder();
    const recorded = [
      { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'weather', args: { location: 'SF' } }, thoughtSignature: 'sig-call' }] }, index: 0 }] },
      { candidates: [{ content: { role: 'model', parts: [{ text: 'done' }] }, index: 0 }] },
      { candidates: [{ content: { role: 'model', parts: [{ text: '', thoughtSignature: 'sig-end' }] }, finishReason: 'STOP', index: 0 }] },
    ];
    const parts = [...recorded.flatMap((chunk) => decoder.push({ event: undefined, data: JSON.stringify(chunk), id: undefined })), ...decoder.end()];
    const events = toWireEvents(encode(parts).text).map((event) => (event.data as { candidates: { content: { parts: unknown[] } }[] }).candidates[0]?.content.parts);
    expect(events).toEqual([
      [{ functionCall: { id: expect.stringMatching(/^call_[a-z0-9]{8}_0$/), name: 'weather', args: { location: 'SF' } }, thoughtSignature: 'sig-call' }],
      [{ text: 'done' }],
      [{ text: '', thoughtSignature: 'sig-end' }],
    ]);
  });

  it('renders an error part as a bare Google error object, and stops there', () => {
    const encoder = createGeminiStreamEncoder(fixedContext());
    encoder.encode({ type: 'text-delta', text: 'Part' });
    const error = encoder.encode({ type: 'error', message: 'Overloaded', code: 'overloaded_error' });
    // Not a `data:` event: @google/genai raises ApiError only for a read that is the error JSON whole.
    expect(JSON.parse(error)).toEqual({ error: { code: 503, message: 'Overloaded', status: 'UNAVAILABLE' } });
    expect(encoder.encode({ type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: undefined })).toBe('');
    expect(encoder.end()).toBe('');
  });

  it('carries redacted reasoning as the signature of the call that follows, which the decoder reads back as redacted', () => {
    const encoder = createGeminiStreamEncoder(fixedContext());
    const parts: CanonicalStreamPart[] = [
      { type: 'start', id: 'r1', model: 'm', created: 0 },
      { type: 'reasoning-delta', text: 'Let me think.' },
      { type: 'reasoning-redacted', data: 'gAAAAABenc1', issuer: 'openai' },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_calls' }, usage: undefined },
    ];
    const text = parts.map((part) => encoder.encode(part)).join('') + encoder.end();
    expect(encoder.warnings).toEqual([]);
    const events = toWireEvents(text).map((event) => (event.data as { candidates: { content: { parts: unknown[] } }[] }).candidates[0]!.content.parts);
    expect(events.flat()).toContainEqual({ functionCall: { id: 'call_1', name: 'get_weather', args: {} }, thoughtSignature: 'redacted:openai:gAAAAABenc1' });
    const decoder = createGeminiStreamDecoder();
    const decoded: CanonicalStreamPart[] = [];
    const sse = createSseDecoder({ maxEventBytes: 1 << 20, onEvent: (event) => decoded.push(...decoder.push(event)) });
    sse.push(Buffer.from(text));
    sse.end();
    expect(decoded.filter((part) => part.type.startsWith('reasoning'))).toEqual([
      { type: 'reasoning-delta', text: 'Let me think.' },
      { type: 'reasoning-redacted', data: 'gAAAAABenc1', issuer: 'openai' },
    ]);
  });
});

describe('createGeminiStreamEncoder for a client that did not ask for thoughts', () => {
  it('sends no thought text, and keeps the signature on the part that follows', () => {
    const encoder = createGeminiStreamEncoder({ ...fixedContext(), omitReasoningText: true });
    const parts: CanonicalStreamPart[] = [
      { type: 'start', id: 'r1', model: 'm', created: 0 },
      { type: 'reasoning-delta', text: 'Let me think' },
      { type: 'reasoning-signature', signature: 'sig-1' },
      { type: 'text-delta', text: 'Answer' },
    ];
    const body = parts.map((part) => encoder.encode(part)).join('');
    const events = body.split('\r\n\r\n').filter((event) => event.startsWith('data: ')).map((event) => JSON.parse(event.slice(6)));
    const sent = events.flatMap((event) => event.candidates[0].content.parts);
    expect(sent).toEqual([{ text: 'Answer', thoughtSignature: 'sig-1' }]);
  });
});
