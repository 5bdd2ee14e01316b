import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { createSseDecoder } from '../../streaming/decode-sse.js';
import { expectGolden, toJsonLines } from '../test-support/expect-golden.js';
import { createOpenaiChatStreamDecoder } from './decode-openai-chat-stream.js';
import { fixtureDirectory, readChunksAsSse, recordedDirectory } from './test-support/read-fixture.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

/** Feeds SSE text through the byte-level SSE decoder in chunks of `chunkSize` bytes (cutting events and characters). */
function decodeSse(sse: string, chunkSize: number): { parts: CanonicalStreamPart[]; warnings: string[] } {
  const decoder = createOpenaiChatStreamDecoder();
  const parts: CanonicalStreamPart[] = [];
  const sseDecoder = createSseDecoder({ maxEventBytes: 1 << 20, onEvent: (event) => parts.push(...decoder.push(event)) });
  const bytes = new TextEncoder().encode(sse);
  for (let offset = 0; offset < bytes.length; offset += chunkSize) sseDecoder.push(bytes.subarray(offset, offset + chunkSize));
  sseDecoder.end();
  parts.push(...decoder.end());
  return { parts, warnings: decoder.warnings };
}

function decodeData(...payloads: unknown[]): { parts: CanonicalStreamPart[]; warnings: string[] } {
  const decoder = createOpenaiChatStreamDecoder();
  const parts = payloads.flatMap((payload) => decoder.push({ event: undefined, id: undefined, data: typeof payload === 'string' ? payload : JSON.stringify(payload) }));
  return { parts: [...parts, ...decoder.end()], warnings: decoder.warnings };
}

const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
  id: 'chatcmpl-1',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finishReason }],
});

// The legacy /v1/completions stream recorded beside them is not Chat Completions.
const recorded = readdirSync(recordedDirectory).filter((name) => name.endsWith('.chunks.txt') && !name.startsWith('openai-completion'));
const ours = readdirSync(fixtureDirectory).filter((name) => name.endsWith('.chunks.txt'));
const streams = [...recorded.map((name) => [name, join(recordedDirectory, name)]), ...ours.map((name) => [name, join(fixtureDirectory, name)])];

describe('createOpenaiChatStreamDecoder', () => {
  it.each(streams)('decodes %s as its golden file says, whatever the byte chunking', (name, path) => {
    const sse = readChunksAsSse(path);
    const whole = decodeSse(sse, sse.length);
    expectGolden(goldenFolder, `decode-${name.replace('.chunks.txt', '')}.parts.jsonl`, toJsonLines(whole.parts));
    expect(whole.warnings).toEqual([]);
    for (const size of [1, 7, 100]) expect(decodeSse(sse, size).parts).toEqual(whole.parts);
  });

  it('emits tool-call arguments from byte-chunked SSE while the stream is still arriving', () => {
    const bytes = new TextEncoder().encode(readChunksAsSse(join(fixtureDirectory, 'openai-parallel-tool-calls.chunks.txt')));
    const decoder = createOpenaiChatStreamDecoder();
    const arrivals: { part: CanonicalStreamPart; bytesPushed: number }[] = [];
    let bytesPushed = 0;
    const sseDecoder = createSseDecoder({ maxEventBytes: 1 << 20, onEvent: (event) => arrivals.push(...decoder.push(event).map((part) => ({ part, bytesPushed }))) });
    for (let offset = 0; offset < bytes.length; offset += 64) {
      bytesPushed = Math.min(offset + 64, bytes.length);
      sseDecoder.push(bytes.subarray(offset, offset + 64));
    }
    const firstDelta = arrivals.find(({ part }) => part.type === 'tool-call-delta');
    expect(firstDelta?.part).toEqual({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"lo' });
    expect(firstDelta?.bytesPushed).toBeLessThan(bytes.length / 4);
  });

  it('emits each tool-call argument fragment as it arrives, before the stream ends', () => {
    const decoder = createOpenaiChatStreamDecoder();
    const push = (payload: unknown) => decoder.push({ event: undefined, id: undefined, data: JSON.stringify(payload) });
    expect(push(chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] }))).toEqual([
      { type: 'start', id: 'chatcmpl-1', model: 'm', created: 1 },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' },
    ]);
    expect(push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }))).toEqual([{ type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":' }]);
    expect(push(chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }))).toEqual([{ type: 'tool-call-delta', index: 0, argumentsDelta: '1}' }]);
    // The calls end with the stream, not at finish_reason: some compatibles send fragments after it.
    expect(push(chunk({}, 'tool_calls'))).toEqual([]);
    expect(push(chunk({ tool_calls: [{ index: 0, function: { arguments: ' ' } }] }))).toEqual([{ type: 'tool-call-delta', index: 0, argumentsDelta: ' ' }]);
    expect(decoder.push({ event: undefined, id: undefined, data: '[DONE]' })).toEqual([
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_calls' }, usage: undefined },
    ]);
    expect(decoder.end()).toEqual([]);
  });

  it('numbers calls in the order they appear, even when the wire indexes interleave out of order', () => {
    const { parts } = decodeData(
      chunk({ tool_calls: [{ index: 1, id: 'call_second', type: 'function', function: { name: 'second', arguments: '{"b":' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_first', type: 'function', function: { name: 'first', arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '2}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chunk({}, 'tool_calls'),
    );
    expect(parts.slice(1)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_second', name: 'second' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"b":' },
      { type: 'tool-call-start', index: 1, id: 'call_first', name: 'first' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"a":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '2}' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '1}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-end', index: 1 },
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_calls' }, usage: undefined },
    ]);
  });

  it('tells apart parallel calls that a compatible server numbers all 0, by their ids', () => {
    const { parts } = decodeData(
      chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'a', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_b', function: { name: 'b', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    );
    expect(parts.filter((part) => part.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'b' },
    ]);
  });

  it('holds argument fragments that come before the name, and gives a call without id one', () => {
    const { parts, warnings } = decodeData(
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: ':1}' } }] }),
      chunk({}, 'tool_calls'),
    );
    const start = parts[1] as Extract<(typeof parts)[number], { type: 'tool-call-start' }>;
    expect(start).toMatchObject({ type: 'tool-call-start', index: 0, name: 'f', id: expect.stringMatching(/^call_0_[a-z0-9]{8}chatcmpl1$/) });
    expect(parts[2]).toEqual({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"x":1}' });
    expect(warnings).toEqual([`tool call 0 came without an id; ${start.id} given`]);
  });

  it('gives a call whose id repeats one already used in the answer an id of its own', () => {
    const { parts, warnings } = decodeData(
      chunk({ tool_calls: [{ index: 0, id: 'call_0', function: { name: 'a', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_0', function: { name: 'b', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    );
    const ids = parts.flatMap((part) => (part.type === 'tool-call-start' ? [part.id] : []));
    expect(ids[0]).toBe('call_0');
    expect(ids[1]).toMatch(/^call_1_[a-z0-9]{8}chatcmpl1$/);
    expect(warnings).toEqual([`tool call 1 repeated the id call_0; ${ids[1]} given`]);
  });

  it('does not start the response on Azure’s opening prompt_filter_results chunk, which has no id', () => {
    const { parts } = decodeData(
      { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] },
      chunk({ role: 'assistant', content: 'Hi' }, 'stop'),
    );
    expect(parts[0]).toEqual({ type: 'start', id: 'chatcmpl-1', model: 'm', created: 1 });
  });

  it('reads reasoning from `reasoning` (OpenRouter, vLLM) as from `reasoning_content`, and a refusal as text marked refusal', () => {
    const { parts, warnings } = decodeData(chunk({ reasoning: 'Think.' }), chunk({ refusal: 'No.' }), chunk({}, 'stop'));
    expect(parts.slice(1, 3)).toEqual([
      { type: 'reasoning-delta', text: 'Think.' },
      { type: 'text-delta', text: 'No.', refusal: true },
    ]);
    expect(warnings).toEqual([]);
  });

  it('turns a mid-stream error into an error part and finishes with unified error', () => {
    const { parts } = decodeData(chunk({ content: 'Hel' }), { error: { message: 'Overloaded', type: 'server_error', code: null } });
    expect(parts.slice(2)).toEqual([
      { type: 'error', message: 'Overloaded', code: 'server_error' },
      { type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: undefined },
    ]);
  });

  it('reports a malformed chunk as an error part instead of dropping it', () => {
    const { parts, warnings } = decodeData(chunk({ content: 'Hel' }), '{"id": "chatcmpl-1", "choi');
    expect(parts[2]).toEqual({ type: 'error', message: 'the upstream sent a malformed stream chunk', code: 'invalid_chunk' });
    expect(warnings[0]).toMatch(/^a malformed chunk was received/);
  });

  it('ignores an empty data event, a keep-alive of some compatibles', () => {
    const { parts, warnings } = decodeData(chunk({ content: 'Hi' }), '', chunk({}, 'stop'));
    expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'finish']);
    expect(warnings).toEqual([]);
  });

  it('finishes with unified other and a warning when the upstream never gave a finish_reason', () => {
    const { parts, warnings } = decodeData(chunk({ content: 'Hel' }));
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'other', raw: undefined }, usage: undefined });
    expect(warnings).toEqual(['the upstream stream ended without a finish_reason']);
  });

  it('emits usage as it comes and puts the last one on finish', () => {
    const usage = { prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 4 } };
    const { parts } = decodeData(chunk({ content: 'Hi' }, 'stop'), { id: 'chatcmpl-1', created: 1, model: 'm', choices: [], usage });
    const normalized = { input: { total: 10, cacheRead: 4, cacheWrite: 0 }, output: { total: 2, reasoning: 0 }, raw: usage };
    expect(parts.slice(2)).toEqual([
      { type: 'usage', usage: normalized },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: normalized },
    ]);
  });
});
