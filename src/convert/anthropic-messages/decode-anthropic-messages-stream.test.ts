import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/conversion.js';
import type { SseEvent } from '../../streaming/decode-sse.js';
import { createAnthropicMessagesStreamDecoder } from './decode-anthropic-messages-stream.js';
import { replaySseThroughDecoder, toAnthropicSseText } from './test-support/replay-anthropic-chunks.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');
const recording = (name: string): string => toAnthropicSseText(readFileSync(join(fixtures, name), 'utf8'));
const event = (data: unknown): SseEvent => ({ event: (data as { type: string }).type, data: JSON.stringify(data), id: undefined });
const messageStart = event({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], usage: { input_tokens: 10, output_tokens: 1 } } });

function decodeAll(events: SseEvent[]): { parts: CanonicalStreamPart[]; warnings: string[] } {
  const decoder = createAnthropicMessagesStreamDecoder();
  const parts = [...events.flatMap((each) => decoder.push(each)), ...decoder.end()];
  return { parts, warnings: decoder.warnings };
}

describe('createAnthropicMessagesStreamDecoder', () => {
  it('gives the same parts whatever the byte chunking, multibyte characters included', () => {
    const text = recording('anthropic-clear-thinking.1.chunks.txt');
    const expected = replaySseThroughDecoder(text, createAnthropicMessagesStreamDecoder(), 1 << 20).parts;
    for (const size of [1, 2, 3, 5, 64]) expect(replaySseThroughDecoder(text, createAnthropicMessagesStreamDecoder(), size).parts).toEqual(expected);
  });

  it('emits each tool-call argument fragment as its event arrives, before the stream ends', () => {
    const decoder = createAnthropicMessagesStreamDecoder();
    const { pushes } = replaySseThroughDecoder(recording('anthropic-parallel-tool-calls.chunks.txt'), decoder, 16);
    const firstFragment = pushes.findIndex((parts) => parts.some((part) => part.type === 'tool-call-delta'));
    const finish = pushes.findIndex((parts) => parts.some((part) => part.type === 'finish'));
    expect(firstFragment).toBeGreaterThan(-1);
    expect(firstFragment).toBeLessThan(finish);
    // One event in, one fragment out: nothing is held back.
    expect(pushes[firstFragment]).toEqual([{ type: 'tool-call-delta', index: 0, argumentsDelta: '{"location": "San Fra' }]);
  });

  it('counts tool indexes from 0 across content blocks', () => {
    const { parts } = replaySseThroughDecoder(recording('anthropic-parallel-tool-calls.chunks.txt'), createAnthropicMessagesStreamDecoder());
    expect(parts.filter((part) => part.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', index: 0, id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather' },
      { type: 'tool-call-start', index: 1, id: 'toolu_01B3kL8hP2nQ7rT5vX9yZ4cD', name: 'get_time' },
    ]);
  });

  it('normalizes usage: input total includes cache reads and writes', () => {
    const { parts } = replaySseThroughDecoder(recording('anthropic-cache-usage.chunks.txt'), createAnthropicMessagesStreamDecoder());
    const finish = parts.at(-1);
    expect(finish?.type === 'finish' && finish.usage?.input).toEqual({ total: 6 + 3337 + 6289, cacheRead: 6289, cacheWrite: 3337 });
  });

  it('turns an error event into an error part and finishes with error', () => {
    const { parts } = replaySseThroughDecoder(recording('anthropic-error-overloaded.chunks.txt'), createAnthropicMessagesStreamDecoder());
    expect(parts.slice(-2)).toMatchObject([
      { type: 'error', message: 'Overloaded', code: 'overloaded_error' },
      { type: 'finish', finishReason: { unified: 'error' } },
    ]);
  });

  it('closes an open tool call and finishes at end() when the upstream breaks off', () => {
    const { parts, warnings } = decodeAll([
      messageStart,
      event({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }),
      event({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":' } }),
    ]);
    expect(parts.slice(-3)).toEqual([
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'other', raw: undefined }, usage: undefined },
    ]);
    expect(warnings).toEqual(['the stream ended without message_stop']);
  });

  it("finishes an in-band error without message_start's interim usage (output_tokens: 1), which is never final", () => {
    const { parts } = decodeAll([
      messageStart,
      event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Partial answer' } }),
      event({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ]);
    expect(parts.filter((part) => part.type === 'usage')).toEqual([]);
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: undefined });
  });

  it('finishes an in-band error that follows a message_delta with the usage that message_delta reported', () => {
    const { parts } = decodeAll([
      messageStart,
      event({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 42 } }),
      event({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'error' }, usage: { input: { total: 10 }, output: { total: 42 } } });
  });

  it('keeps the stop reason of a message_delta when message_stop never comes', () => {
    const { parts } = decodeAll([messageStart, event({ type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 9 } })]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'length', raw: 'max_tokens' }, usage: { output: { total: 9, reasoning: 0 } } });
  });

  it("keeps message_start's 1-hour cache-write share when message_delta reports the final counts without it", () => {
    const start = event({
      type: 'message_start',
      message: {
        id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [],
        usage: { input_tokens: 10, cache_creation_input_tokens: 3000, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 }, output_tokens: 1 },
      },
    });
    const delta = event({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 10, cache_creation_input_tokens: 3000, cache_read_input_tokens: 0, output_tokens: 40 } });
    const { parts } = decodeAll([start, delta, event({ type: 'message_stop' })]);
    const finish = parts.find((part) => part.type === 'finish');
    expect(finish?.type === 'finish' && finish.usage?.input).toEqual({ total: 3010, cacheRead: 0, cacheWrite: 3000, cacheWrite1h: 2000 });
  });

  it("keeps message_start's input when a relay's message_delta writes zeros for it", () => {
    const start = event({
      type: 'message_start',
      message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], usage: { input_tokens: 5000, cache_read_input_tokens: 2000, cache_creation_input_tokens: 1000, output_tokens: 1 } },
    });
    const delta = event({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 20 } });
    const { parts } = decodeAll([start, delta, event({ type: 'message_stop' })]);
    const finish = parts.find((part) => part.type === 'finish');
    expect(finish?.type === 'finish' && { input: finish.usage?.input, output: finish.usage?.output.total }).toEqual({ input: { total: 8000, cacheRead: 2000, cacheWrite: 1000 }, output: 20 });
  });

  it('carries whole blocks that a proxy put in message_start', () => {
    const start = event({
      type: 'message_start',
      message: { id: 'msg_2', model: 'claude', content: [{ type: 'text', text: 'Hi' }, { type: 'tool_use', id: 'toolu_9', name: 'lookup', input: { id: 'c1' } }], stop_reason: 'tool_use', usage: { input_tokens: 0, output_tokens: 0 } },
    });
    const { parts } = decodeAll([start, event({ type: 'message_stop' })]);
    expect(parts).toEqual([
      { type: 'start', id: 'msg_2', model: 'claude', created: 0 },
      { type: 'text-delta', text: 'Hi' },
      { type: 'tool-call-start', index: 0, id: 'toolu_9', name: 'lookup' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"id":"c1"}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_use' }, usage: expect.any(Object) },
    ]);
  });

  it('drops server tool blocks and their deltas with a warning', () => {
    const { parts, warnings } = decodeAll([
      messageStart,
      event({ type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } }),
      event({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } }),
      event({ type: 'content_block_stop', index: 0 }),
      event({ type: 'message_stop' }),
    ]);
    expect(parts.map((part) => part.type)).toEqual(['start', 'finish']);
    expect(warnings).toEqual(["a 'server_tool_use' content block is not carried: dropped"]);
  });

  it('ignores pings and unknown events, and reports data that is not JSON', () => {
    const { parts, warnings } = decodeAll([messageStart, event({ type: 'ping' }), event({ type: 'brand_new_event' }), { event: 'message_delta', data: '{oops', id: undefined }, event({ type: 'message_stop' })]);
    expect(parts.map((part) => part.type)).toEqual(['start', 'finish']);
    expect(warnings).toEqual(["an unknown 'brand_new_event' event was ignored", 'an event that is not JSON was dropped: "{oops"']);
  });

  it('ignores a second message_start', () => {
    const { parts, warnings } = decodeAll([messageStart, messageStart, event({ type: 'message_stop' })]);
    expect(parts.filter((part) => part.type === 'start')).toHaveLength(1);
    expect(warnings).toEqual(['a second message_start was ignored']);
  });

  it('emits start and finish even when the upstream sent only an error', () => {
    const { parts } = decodeAll([event({ type: 'error', error: { type: 'api_error', message: 'boom' } })]);
    expect(parts.map((part) => part.type)).toEqual(['start', 'error', 'finish']);
  });
});
