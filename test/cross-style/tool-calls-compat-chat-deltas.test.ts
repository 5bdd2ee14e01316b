/**
 * Tool-call deltas as OpenAI-compatible servers really stream them (not as OpenAI does), from a Chat
 * Completions upstream to Anthropic, Responses and Gemini clients reading through their SDKs' stream
 * accumulators: 1-character fragments split inside escapes and surrogate pairs, interleaved indexes,
 * ids only first / on every delta / whole calls in one delta, no index at all, text around the calls,
 * finish "stop" after calls, empty arguments, and arguments truncated by the length limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { ask, chatDeltas, toolStop, type Client } from './tool-wire-helpers.js';
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
const argsB = '{"tz":"Europe/Paris"}';
const chars = utf16Units;

const clients: Client[] = ['anthropic', 'openai-responses', 'gemini'];

describe('Chat upstream, compatible-server delta shapes → each client SDK accumulates exactly the calls', () => {
  it.each(clients)('%s: two calls, 1-char fragments interleaved 0/1, id/name/type only on the first delta', async (client) => {
    const deltas: Record<string, unknown>[] = [
      { tool_calls: [{ index: 0, id: 'call_A', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 1, id: 'call_B', type: 'function', function: { name: 'get_time', arguments: '' } }] },
    ];
    const a = chars(argsA);
    const b = chars(argsB);
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i] !== undefined) deltas.push({ tool_calls: [{ index: 0, function: { arguments: a[i] } }] });
      if (b[i] !== undefined) deltas.push({ tool_calls: [{ index: 1, function: { arguments: b[i] } }] });
    }
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(chatDeltas(deltas, 'tool_calls', { input: 11, output: 22 }));
    const seen = await ask(fixture, client, M.chat);
    expect(seen.calls).toEqual([
      { id: 'call_A', name: 'get_weather', args: valueA },
      { id: 'call_B', name: 'get_time', args: { tz: 'Europe/Paris' } },
    ]);
    expect(seen.stop).toBe(toolStop[client]);
    expect(await fixture.lastLog()).toMatchObject({ input_tokens: 11, output_tokens: 22, usage_source: 'upstream' });
  });

  it.each(clients)('%s: id, type and name repeated on every delta', async (client) => {
    const deltas = [...chars(argsA).map((c) => ({ tool_calls: [{ index: 0, id: 'call_R', type: 'function', function: { name: 'get_weather', arguments: c } }] }))];
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(chatDeltas(deltas, 'tool_calls', { input: 5, output: 6 }));
    const seen = await ask(fixture, client, M.chat);
    expect(seen.calls).toEqual([{ id: 'call_R', name: 'get_weather', args: valueA }]);
  });

  it.each(clients)('%s: each call whole in one delta with id and name, both in one chunk, no index', async (client) => {
    const deltas = [{ tool_calls: [{ id: 'call_W1', type: 'function', function: { name: 'get_weather', arguments: argsA } }, { id: 'call_W2', type: 'function', function: { name: 'get_time', arguments: argsB } }] }];
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(chatDeltas(deltas, 'tool_calls', { input: 5, output: 6 }));
    const seen = await ask(fixture, client, M.chat);
    expect(seen.calls).toEqual([
      { id: 'call_W1', name: 'get_weather', args: valueA },
      { id: 'call_W2', name: 'get_time', args: { tz: 'Europe/Paris' } },
    ]);
  });

  it.each(clients)('%s: every call numbered index 0, told apart by the id on its first delta', async (client) => {
    const deltas = [
      { tool_calls: [{ index: 0, id: 'call_Z1', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      ...chars(argsA).map((c) => ({ tool_calls: [{ index: 0, function: { arguments: c } }] })),
      { tool_calls: [{ index: 0, id: 'call_Z2', type: 'function', function: { name: 'get_time', arguments: '' } }] },
      ...chars(argsB).map((c) => ({ tool_calls: [{ index: 0, function: { arguments: c } }] })),
    ];
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(chatDeltas(deltas, 'tool_calls', { input: 5, output: 6 }));
    const seen = await ask(fixture, client, M.chat);
    expect(seen.calls).toEqual([
      { id: 'call_Z1', name: 'get_weather', args: valueA },
      { id: 'call_Z2', name: 'get_time', args: { tz: 'Europe/Paris' } },
    ]);
  });

  it.each(clients)('%s: text before and after the calls, finish_reason "stop" instead of "tool_calls"', async (client) => {
    const deltas = [
      { content: 'Let me ' },
      { content: 'check. ' },
      { tool_calls: [{ index: 0, id: 'call_S1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] },
      { tool_calls: [{ index: 1, id: 'call_S2', type: 'function', function: { name: 'get_time', arguments: argsB } }] },
      { content: 'One moment.' },
    ];
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(chatDeltas(deltas, 'stop', { input: 5, output: 6 }));
    const seen = await ask(fixture, client, M.chat);
    expect(seen.text).toBe('Let me check. One moment.');
    expect(seen.calls).toEqual([
      { id: 'call_S1', name: 'get_weather', args: { city: 'Oslo' } },
      { id: 'call_S2', name: 'get_time', args: { tz: 'Europe/Paris' } },
    ]);
    expect(seen.stop).toBe(toolStop[client]);
  });

  it.each(clients)('%s: a call with arguments "" and a call with no arguments field at all → {} each', async (client) => {
    const deltas = [
      { tool_calls: [{ index: 0, id: 'call_E1', type: 'function', function: { name: 'get_time', arguments: '' } }] },
      { tool_calls: [{ index: 1, id: 'call_E2', type: 'function', function: { name: 'get_weather' } }] },
    ];
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(chatDeltas(deltas, 'tool_calls', { input: 5, output: 6 }));
    const seen = await ask(fixture, client, M.chat);
    expect(seen.calls).toEqual([
      { id: 'call_E1', name: 'get_time', args: {} },
      { id: 'call_E2', name: 'get_weather', args: {} },
    ]);
  });

  it.each(clients)('%s: arguments cut by the length limit (finish_reason "length"): a length stop, the call kept, usage billed as reported', async (client) => {
    const deltas = [
      { content: 'Sure. ' },
      { tool_calls: [{ index: 0, id: 'call_L1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Par' } }] },
    ];
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(chatDeltas(deltas, 'length', { input: 9, output: 16 }));
    const seen = await ask(fixture, client, M.chat, true, 16);
    const lengthStop: Record<Client, string> = { 'openai-chat': 'length', anthropic: 'max_tokens', 'openai-responses': 'incomplete:max_output_tokens', gemini: 'MAX_TOKENS' };
    expect(seen.stop).toBe(lengthStop[client]);
    expect(seen.calls.map((c) => ({ id: c.id, name: c.name }))).toEqual([{ id: 'call_L1', name: 'get_weather' }]);
    expect(await fixture.lastLog()).toMatchObject({ input_tokens: 9, output_tokens: 16, usage_source: 'upstream' });
  });
});
