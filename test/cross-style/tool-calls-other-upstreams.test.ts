/**
 * Adversarial tool-call streams from Anthropic, Responses and Gemini upstreams, read by every other
 * client style through its SDK's accumulator (and whole): arguments split inside escapes and surrogate
 * pairs, calls without arguments, text around calls, several Gemini calls in one candidate and across
 * chunks, arguments cut by the length limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import type { SseEvent } from '../fakes/scripted-upstream.js';
import { ask, toolStop, type Client } from './tool-wire-helpers.js';
import { hardArguments, hardArgumentsValue, utf16Units } from './tool-wire-helpers.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const argsA = hardArguments;
const valueA = hardArgumentsValue;
const chars = utf16Units;
const lengthStop: Record<Client, string> = { 'openai-chat': 'length', anthropic: 'max_tokens', 'openai-responses': 'incomplete:max_output_tokens', gemini: 'MAX_TOKENS' };

function anthropicSse(blocks: { start: any; deltas: any[] }[], stop: string, usage = { input_tokens: 7, output_tokens: 9 }): { sse: SseEvent[] } {
  const events: SseEvent[] = [];
  const ev = (data: any) => events.push({ event: data.type, data });
  ev({ type: 'message_start', message: { id: 'msg_adv', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } } });
  blocks.forEach((block, index) => {
    ev({ type: 'content_block_start', index, content_block: block.start });
    for (const delta of block.deltas) ev({ type: 'content_block_delta', index, delta });
    ev({ type: 'content_block_stop', index });
  });
  ev({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  ev({ type: 'message_stop' });
  return { sse: events };
}
const toolUse = (id: string, name: string) => ({ type: 'tool_use', id, name, input: {} });
const json = (piece: string) => ({ type: 'input_json_delta', partial_json: piece });
const text = (piece: string) => ({ type: 'text_delta', text: piece });

const fromAnthropic: Client[] = ['openai-chat', 'openai-responses', 'gemini'];

describe('Anthropic upstream stream', () => {
  it.each(fromAnthropic)('%s client: [text, tool_use (1-char fragments), tool_use without any input_json_delta, text]', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(
      anthropicSse(
        [
          { start: { type: 'text', text: '' }, deltas: [text('Checking. ')] },
          { start: toolUse('toolu_01A', 'get_weather'), deltas: [json(''), ...chars(argsA).map(json)] },
          { start: toolUse('toolu_01B', 'get_time'), deltas: [] },
          { start: { type: 'text', text: '' }, deltas: [text('Done.')] },
        ],
        'tool_use',
      ),
    );
    const seen = await ask(fixture, client, M.anthropic);
    expect(seen.text).toBe('Checking. Done.');
    expect(seen.calls).toEqual([
      { id: 'toolu_01A', name: 'get_weather', args: valueA },
      { id: 'toolu_01B', name: 'get_time', args: {} },
    ]);
    expect(seen.stop).toBe(toolStop[client]);
    expect(await fixture.lastLog()).toMatchObject({ input_tokens: 7, output_tokens: 9, usage_source: 'upstream' });
  });

  it.each(fromAnthropic)('%s client: tool_use input cut by max_tokens', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(anthropicSse([{ start: toolUse('toolu_01L', 'get_weather'), deltas: [json('{"city": "Pa')] }], 'max_tokens'));
    const seen = await ask(fixture, client, M.anthropic, true, 16);
    expect(seen.stop).toBe(lengthStop[client]);
    expect(seen.calls.map((c) => ({ id: c.id, name: c.name }))).toEqual([{ id: 'toolu_01L', name: 'get_weather' }]);
    expect(await fixture.lastLog()).toMatchObject({ input_tokens: 7, output_tokens: 9 });
  });
});

function responsesSse(items: { item: any; deltas?: string[]; doneArgs?: string }[], status: 'completed' | 'incomplete', usage = { input_tokens: 8, output_tokens: 10 }): { sse: SseEvent[] } {
  const events: SseEvent[] = [];
  let seq = 0;
  const ev = (type: string, data: any) => events.push({ event: type, data: { type, sequence_number: seq++, ...data } });
  const base = { id: 'resp_adv', object: 'response', created_at: 1760000000, model: 'gpt-5-mini', output: [] as any[], usage: null as any, status: 'in_progress', incomplete_details: null, error: null };
  ev('response.created', { response: base });
  const output: any[] = [];
  items.forEach(({ item, deltas = [], doneArgs }, outputIndex) => {
    if (item.type === 'function_call') {
      ev('response.output_item.added', { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const d of deltas) ev('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta: d });
      ev('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, arguments: doneArgs ?? item.arguments });
      ev('response.output_item.done', { output_index: outputIndex, item });
    } else {
      const t = item.content[0].text;
      ev('response.output_item.added', { output_index: outputIndex, item: { ...item, content: [], status: 'in_progress' } });
      ev('response.content_part.added', { item_id: item.id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      ev('response.output_text.delta', { item_id: item.id, output_index: outputIndex, content_index: 0, delta: t });
      ev('response.output_text.done', { item_id: item.id, output_index: outputIndex, content_index: 0, text: t });
      ev('response.output_item.done', { output_index: outputIndex, item });
    }
    output.push(item);
  });
  const total = { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
  ev(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: { ...base, status, output, usage: total, incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null } });
  return { sse: events };
}
const msg = (id: string, t: string) => ({ id, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: t, annotations: [] }] });
const fc = (id: string, callId: string, name: string, args: string) => ({ id, type: 'function_call', status: 'completed', call_id: callId, name, arguments: args });

const fromResponses: Client[] = ['openai-chat', 'anthropic', 'gemini'];

describe('Responses upstream stream', () => {
  it.each(fromResponses)('%s client: [message, function_call (1-char deltas), function_call with arguments "", message]', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(
      responsesSse(
        [
          { item: msg('msg_1', 'Checking. ') },
          { item: fc('fc_1', 'call_R1', 'get_weather', argsA), deltas: chars(argsA) },
          { item: fc('fc_2', 'call_R2', 'get_time', ''), deltas: [] },
          { item: msg('msg_2', 'Done.') },
        ],
        'completed',
      ),
    );
    const seen = await ask(fixture, client, M.responses);
    expect(seen.text).toBe('Checking. Done.');
    expect(seen.calls).toEqual([
      { id: 'call_R1', name: 'get_weather', args: valueA },
      { id: 'call_R2', name: 'get_time', args: {} },
    ]);
    expect(seen.stop).toBe(toolStop[client]);
    expect(await fixture.lastLog()).toMatchObject({ input_tokens: 8, output_tokens: 10, usage_source: 'upstream' });
  });

  it.each(fromResponses)('%s client (whole answer): function_call with arguments "" → {}', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue({ json: { id: 'resp_w', object: 'response', created_at: 1760000000, model: 'gpt-5-mini', status: 'completed', incomplete_details: null, error: null, output: [fc('fc_1', 'call_W1', 'get_time', '')], usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } } });
    const seen = await ask(fixture, client, M.responses, false);
    expect(seen.calls).toEqual([{ id: 'call_W1', name: 'get_time', args: {} }]);
  });

  it.each(fromResponses)('%s client: function_call cut by max_output_tokens (incomplete)', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(responsesSse([{ item: { ...fc('fc_1', 'call_L', 'get_weather', '{"city":"Pa'), status: 'incomplete' }, deltas: ['{"city":', '"Pa'] }], 'incomplete'));
    const seen = await ask(fixture, client, M.responses, true, 16);
    expect(seen.stop).toBe(lengthStop[client]);
    expect(seen.calls.map((c) => ({ id: c.id, name: c.name }))).toEqual([{ id: 'call_L', name: 'get_weather' }]);
  });
});

function geminiSse(chunks: { parts: any[]; finish?: string; usage?: boolean }[]): { sse: SseEvent[]; crlf: true } {
  return {
    crlf: true,
    sse: chunks.map((c) => ({
      data: {
        candidates: [{ content: { role: 'model', parts: c.parts }, ...(c.finish ? { finishReason: c.finish } : {}), index: 0 }],
        ...(c.usage ? { usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 13, totalTokenCount: 25 } } : {}),
        modelVersion: 'gemini-2.5-flash',
        responseId: 'gemAdv1',
      },
    })),
  };
}
const fcall = (name: string, args?: unknown) => ({ functionCall: { name, ...(args === undefined ? {} : { args }) } });

const fromGemini: Client[] = ['openai-chat', 'openai-responses', 'anthropic'];

describe('Gemini upstream stream', () => {
  it.each(fromGemini.flatMap((client) => [true, false].map((stream) => ({ client, stream }))))(
    '$client client (stream=$stream): text, two calls in one candidate, text, a call with no args, a call with {} args in a later chunk',
    async ({ client, stream }) => {
      fixture.upstream.clearQueue();
      fixture.upstream.enqueue(
        geminiSse([
          { parts: [{ text: 'Checking. ' }] },
          { parts: [fcall('get_weather', valueA), fcall('get_weather', { city: 'Oslo' })] },
          { parts: [{ text: 'And ' }, fcall('get_time')] },
          { parts: [fcall('get_time', {}), { text: 'done.' }] },
          { parts: [{ text: '' }], finish: 'STOP', usage: true },
        ]),
      );
      const seen = await ask(fixture, client, M.gemini, stream);
      expect(seen.text).toBe('Checking. And done.');
      expect(seen.calls.map((c) => ({ name: c.name, args: c.args }))).toEqual([
        { name: 'get_weather', args: valueA },
        { name: 'get_weather', args: { city: 'Oslo' } },
        { name: 'get_time', args: {} },
        { name: 'get_time', args: {} },
      ]);
      const ids = seen.calls.map((c) => c.id);
      expect(new Set(ids).size).toBe(4);
      for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(seen.stop).toBe(toolStop[client]);
      expect(await fixture.lastLog()).toMatchObject({ input_tokens: 12, output_tokens: 13, usage_source: 'upstream' });
    },
  );

  it.each(fromGemini)('%s client: a call then MAX_TOKENS', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(geminiSse([{ parts: [fcall('get_weather', { city: 'Pa' })] }, { parts: [{ text: '' }], finish: 'MAX_TOKENS', usage: true }]));
    const seen = await ask(fixture, client, M.gemini, true, 16);
    expect(seen.stop).toBe(lengthStop[client]);
    expect(seen.calls.map((c) => ({ name: c.name, args: c.args }))).toEqual([{ name: 'get_weather', args: { city: 'Pa' } }]);
  });
});
