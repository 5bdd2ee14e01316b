import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/conversion.js';
import { createAnthropicMessagesStreamEncoder } from './encode-anthropic-messages-stream.js';
import { createTestConversionContext } from './test-support/create-test-conversion-context.js';
import { readSseEvents } from './test-support/read-sse-events.js';

const start: CanonicalStreamPart = { type: 'start', id: 'chatcmpl-1', model: 'gpt-4o', created: 1760000000 };
const usage = { input: { total: 10, cacheRead: 0, cacheWrite: 0 }, output: { total: 5, reasoning: 0 } };
const finish = (unified: 'stop' | 'tool_calls' = 'stop'): CanonicalStreamPart => ({ type: 'finish', finishReason: { unified, raw: unified }, usage });

function encodeAll(parts: CanonicalStreamPart[]): { events: { event: string | undefined; data: any }[]; warnings: string[] } {
  const encoder = createAnthropicMessagesStreamEncoder(createTestConversionContext());
  const text = parts.map((part) => encoder.encode(part)).join('') + encoder.end();
  return { events: readSseEvents(text), warnings: encoder.warnings };
}

/** The content blocks a client rebuilds from the events, in block order. */
function blocks(events: { data: any }[]): unknown[] {
  const content: any[] = [];
  for (const { data } of events) {
    if (data.type === 'content_block_start') content[data.index] = { ...data.content_block };
    if (data.type !== 'content_block_delta') continue;
    const block = content[data.index];
    const delta = data.delta;
    if (delta.type === 'text_delta') block.text += delta.text;
    if (delta.type === 'thinking_delta') block.thinking += delta.thinking;
    if (delta.type === 'signature_delta') block.signature = delta.signature;
    if (delta.type === 'input_json_delta') block.json = (block.json ?? '') + delta.partial_json;
  }
  return content;
}

describe('createAnthropicMessagesStreamEncoder', () => {
  it('names every event in its event: line after its data type', () => {
    const { events } = encodeAll([start, { type: 'text-delta', text: 'Hi' }, finish()]);
    for (const each of events) expect(each.event).toBe(each.data.type);
  });

  it('never interleaves blocks: a second tool call that starts while the first is open waits, in order, until the first ends', () => {
    const { events, warnings } = encodeAll([
      start,
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x":' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'b' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"y":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '2}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-end', index: 1 },
      finish('tool_calls'),
    ]);
    const types = events.map(({ data }) => (data.type === 'content_block_delta' ? `delta${data.index}` : data.type === 'content_block_start' ? `start${data.index}` : data.type === 'content_block_stop' ? `stop${data.index}` : data.type));
    expect(types).toEqual(['message_start', 'start0', 'delta0', 'delta0', 'stop0', 'start1', 'delta1', 'delta1', 'stop1', 'message_delta', 'message_stop']);
    expect(blocks(events)).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'a', input: {}, json: '{"x":1}' },
      { type: 'tool_use', id: 'call_b', name: 'b', input: {}, json: '{"y":2}' },
    ]);
    expect(warnings).toEqual([]);
  });

  it('writes the arguments of the open tool call as they arrive', () => {
    const encoder = createAnthropicMessagesStreamEncoder(createTestConversionContext());
    encoder.encode(start);
    encoder.encode({ type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' });
    expect(readSseEvents(encoder.encode({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"x"' }))).toEqual([
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"x"' } } },
    ]);
  });

  it('holds text that arrives while a tool call is open until the call ends', () => {
    const { events } = encodeAll([
      start,
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' },
      { type: 'text-delta', text: 'meanwhile' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      finish(),
    ]);
    expect(blocks(events)).toEqual([{ type: 'tool_use', id: 'call_a', name: 'a', input: {}, json: '{}' }, { type: 'text', text: 'meanwhile' }]);
  });

  it('closes a tool call that never ended at finish, with a warning', () => {
    const { events, warnings } = encodeAll([start, { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' }, { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' }, finish('tool_calls')]);
    expect(events.map(({ data }) => data.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(warnings).toEqual(['tool call 0 never ended: closed at the end of the stream']);
  });

  it('reports tool_use as the stop reason when the turn made tool calls but the upstream said stop', () => {
    const { events } = encodeAll([start, { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' }, { type: 'tool-call-end', index: 0 }, finish('stop')]);
    expect(events.find(({ data }) => data.type === 'message_delta')?.data.delta.stop_reason).toBe('tool_use');
  });

  it('gives a tool call without an id a fresh toolu_ id', () => {
    const { events } = encodeAll([start, { type: 'tool-call-start', index: 0, id: '', name: 'a' }, { type: 'tool-call-end', index: 0 }, finish('tool_calls')]);
    expect(blocks(events)).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'a', input: {} }]);
  });

  it('puts a signature that arrives alone (Gemini on a function call) in an empty thinking block', () => {
    const { events } = encodeAll([start, { type: 'reasoning-signature', signature: 'sig' }, { type: 'text-delta', text: 'ok' }, finish()]);
    expect(blocks(events)).toEqual([{ type: 'thinking', thinking: '', signature: 'sig' }, { type: 'text', text: 'ok' }]);
  });

  it('starts a new thinking block for reasoning after a signature, and writes redacted thinking whole', () => {
    const { events } = encodeAll([
      start,
      { type: 'reasoning-delta', text: 'one' },
      { type: 'reasoning-signature', signature: 's1' },
      { type: 'reasoning-delta', text: 'two' },
      { type: 'reasoning-redacted', data: 'opaque' },
      finish(),
    ]);
    expect(blocks(events)).toEqual([
      { type: 'thinking', thinking: 'one', signature: 's1' },
      { type: 'thinking', thinking: 'two', signature: '' },
      { type: 'redacted_thinking', data: 'opaque' },
    ]);
  });

  it('uses the last usage part when finish carries none', () => {
    const { events } = encodeAll([start, { type: 'usage', usage }, { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: undefined }]);
    expect(events.find(({ data }) => data.type === 'message_delta')?.data.usage).toEqual({ input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 });
  });

  it('writes an error part as an Anthropic error event and nothing after it', () => {
    const { events } = encodeAll([start, { type: 'text-delta', text: 'Hi' }, { type: 'error', message: 'Upstream overloaded', code: 'overloaded_error' }, finish()]);
    expect(events.map(({ data }) => data.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'error']);
    expect(events.at(-1)?.data).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Upstream overloaded' } });
  });

  it('sends a foreign error code as the Anthropic type of its kind, an unknown one as api_error', () => {
    const typeOf = (code: string) => encodeAll([start, { type: 'error', message: 'bad', code }]).events.at(-1)?.data.error.type;
    expect(typeOf('context_length_exceeded')).toBe('invalid_request_error');
    expect(typeOf('RESOURCE_EXHAUSTED')).toBe('rate_limit_error');
    // The channel's account out of credit is the gateway's fault, not the client's balance.
    expect(typeOf('insufficient_quota')).toBe('api_error');
    expect(typeOf('server_error')).toBe('api_error');
    expect(typeOf('something_new')).toBe('api_error');
  });

  it('ends a stream cut before finish with an error event rather than message_stop', () => {
    const { events, warnings } = encodeAll([start, { type: 'text-delta', text: 'Half an ans' }]);
    expect(events.map(({ data }) => data.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'error']);
    expect(warnings).toEqual(['the stream ended before finish: an error event was sent']);
  });

  it('opens the message itself when parts come before start', () => {
    const { events, warnings } = encodeAll([{ type: 'text-delta', text: 'Hi' }, finish()]);
    expect(events[0]?.data.type).toBe('message_start');
    expect(warnings).toEqual(['the stream began with text-delta, not start']);
  });

  it('makes no block of whitespace-only text around thinking and tool calls, and numbers the blocks it makes from 0 without gaps', () => {
    const { events, warnings } = encodeAll([
      start,
      { type: 'text-delta', text: '\n' },
      { type: 'reasoning-delta', text: 'Checking.' },
      { type: 'reasoning-signature', signature: 'sig' },
      { type: 'text-delta', text: '\n\n' },
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'text-delta', text: ' ' },
      { type: 'tool-call-end', index: 0 },
      { type: 'text-delta', text: '\t\n' },
      finish('tool_calls'),
    ]);
    expect(events.filter(({ data }) => data.type === 'content_block_start').map(({ data }) => [data.index, data.content_block.type])).toEqual([[0, 'thinking'], [1, 'tool_use']]);
    expect(warnings).toEqual([]);
  });

  it('holds whitespace back only until a text run has another character, then writes it with that character', () => {
    const { events } = encodeAll([start, { type: 'text-delta', text: '\n' }, { type: 'text-delta', text: ' \n' }, { type: 'text-delta', text: 'Hi' }, { type: 'text-delta', text: '\n\n' }, { type: 'text-delta', text: 'there' }, finish()]);
    const deltas = events.filter(({ data }) => data.type === 'content_block_delta').map(({ data }) => data.delta.text);
    expect(deltas).toEqual(['\n \nHi', '\n\n', 'there']);
    expect(blocks(events)).toEqual([{ type: 'text', text: '\n \nHi\n\nthere' }]);
  });
});
