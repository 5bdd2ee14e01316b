/**
 * The reverse direction: a client sends back, in its own style, tool results for calls another vendor made
 * (Gemini without ids, Anthropic toolu_ ids, OpenAI call_ ids), with parallel and multi-round results, and
 * the upstream must receive a history its vendor accepts (read from the scripted upstream's received body).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { M, modelOf, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { tools } from './tool-wire-helpers.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const ok = (up: WireStyle) => replyFor(up, { text: 'ok', stop: 'stop', usage: { input: 5, output: 1 } }, false);
const sent = () => fixture.upstream.requests.at(-1)!.body;
const geminiTools = [{ functionDeclarations: [tools.weather, tools.time].map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }];
const anthropicTools = [tools.weather, tools.time].map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as any }));

/** (call id, call name, result text) triples the upstream received, in order, read in its own style. */
function pairs(up: WireStyle, body: any): { calls: [string, string][]; results: [string, string, string][] } {
  switch (up) {
    case 'openai-chat': {
      const calls = body.messages.flatMap((m: any) => (m.tool_calls ?? []).map((c: any) => [c.id, c.function.name]));
      const names = new Map(calls.map(([id, name]: [string, string]) => [id, name]));
      const results = body.messages.filter((m: any) => m.role === 'tool').map((m: any) => [m.tool_call_id, names.get(m.tool_call_id) ?? '?', typeof m.content === 'string' ? m.content : m.content.map((p: any) => p.text).join('')]);
      return { calls, results };
    }
    case 'openai-responses': {
      const calls = body.input.filter((i: any) => i.type === 'function_call').map((c: any) => [c.call_id, c.name]);
      const names = new Map(calls.map(([id, name]: [string, string]) => [id, name]));
      const results = body.input.filter((i: any) => i.type === 'function_call_output').map((o: any) => [o.call_id, names.get(o.call_id) ?? '?', typeof o.output === 'string' ? o.output : o.output.map((p: any) => p.text).join('')]);
      return { calls, results };
    }
    case 'anthropic': {
      const blocks = body.messages.flatMap((m: any) => (typeof m.content === 'string' ? [] : m.content));
      const calls = blocks.filter((b: any) => b.type === 'tool_use').map((b: any) => [b.id, b.name]);
      const names = new Map(calls.map(([id, name]: [string, string]) => [id, name]));
      const results = blocks.filter((b: any) => b.type === 'tool_result').map((b: any) => [b.tool_use_id, names.get(b.tool_use_id) ?? '?', typeof b.content === 'string' ? b.content : (b.content ?? []).map((p: any) => p.text).join('')]);
      return { calls, results };
    }
    case 'gemini': {
      const parts = body.contents.flatMap((c: any) => c.parts);
      const calls = parts.filter((p: any) => p.functionCall).map((p: any) => [p.functionCall.id ?? '', p.functionCall.name]);
      const results = parts.filter((p: any) => p.functionResponse).map((p: any) => [p.functionResponse.id ?? '', p.functionResponse.name, JSON.stringify(p.functionResponse.response)]);
      return { calls, results };
    }
  }
}

/** Every result answers a call made before it, with that call's name, and the result text is the one the client gave for that call. */
function expectPaired(up: WireStyle, body: any, expected: { name: string; result: string }[]) {
  const { calls, results } = pairs(up, body);
  expect(results).toHaveLength(expected.length);
  if (up !== 'gemini') {
    const ids = calls.map(([id]) => id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [id] of results) expect(ids).toContain(id);
  }
  expect(results.map(([, name, text]) => ({ name, hasResult: text }))).toEqual(expected.map((e) => ({ name: e.name, hasResult: expect.stringContaining(e.result) })));
}

describe('gemini client, no call ids, two rounds calling the same functions, parallel results answered out of order', () => {
  it.each(['openai-chat', 'openai-responses', 'anthropic'] as WireStyle[])('→ %s upstream: every result pairs with the right call', async (up) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(ok(up));
    await fixture.gemini.models.generateContent({
      model: modelOf[up],
      config: { tools: geminiTools },
      contents: [
        { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { name: 'get_time', args: { tz: 'Europe/Paris' } } }] },
        // Answered in the other order: Gemini pairs by name.
        { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: { output: 'T-14:00' } } }, { functionResponse: { name: 'get_weather', response: { output: 'W-sunny' } } }] },
        { role: 'model', parts: [{ text: 'Now Rome.' }, { functionCall: { name: 'get_weather', args: { city: 'Rome' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'W-rain' } } }] },
      ],
    });
    expectPaired(up, sent(), [
      { name: 'get_time', result: 'T-14:00' },
      { name: 'get_weather', result: 'W-sunny' },
      { name: 'get_weather', result: 'W-rain' },
    ]);
  });
});

describe('anthropic client: tool results without content, with content [] and "" (a command that printed nothing)', () => {
  it.each(['openai-chat', 'openai-responses', 'gemini'] as WireStyle[])('→ %s upstream: each result is sent in a form the vendor takes', async (up) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(ok(up));
    await fixture.anthropic.messages.create({
      model: modelOf[up],
      max_tokens: 100,
      tools: anthropicTools,
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_01E1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_01E2', name: 'get_time', input: {} },
            { type: 'tool_use', id: 'toolu_01E3', name: 'get_time', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01E1' },
            { type: 'tool_result', tool_use_id: 'toolu_01E2', content: [] },
            { type: 'tool_result', tool_use_id: 'toolu_01E3', content: '' },
          ],
        },
      ],
    });
    const body = sent();
    if (up === 'openai-chat') {
      const results = body.messages.filter((m: any) => m.role === 'tool');
      expect(results.map((m: any) => m.tool_call_id)).toEqual(['toolu_01E1', 'toolu_01E2', 'toolu_01E3']);
      // OpenAI: a tool message's content is required, a string or a non-empty array of text parts.
      for (const m of results) expect(typeof m.content === 'string' || (Array.isArray(m.content) && m.content.length > 0)).toBe(true);
    }
    if (up === 'openai-responses') {
      const outs = body.input.filter((i: any) => i.type === 'function_call_output');
      expect(outs.map((o: any) => o.call_id)).toEqual(['toolu_01E1', 'toolu_01E2', 'toolu_01E3']);
      for (const o of outs) expect(typeof o.output === 'string' || (Array.isArray(o.output) && o.output.length > 0)).toBe(true);
    }
    if (up === 'gemini') {
      const responses = body.contents.at(-1).parts.map((p: any) => p.functionResponse);
      expect(responses.map((r: any) => r.name)).toEqual(['get_weather', 'get_time', 'get_time']);
      for (const r of responses) expect(typeof r.response === 'object' && r.response !== null && !Array.isArray(r.response)).toBe(true);
    }
  });
});

describe('openai chat client: content "" beside tool_calls, arguments "" (from compatibles), parallel tool messages', () => {
  it.each(['anthropic', 'gemini', 'openai-responses'] as WireStyle[])('→ %s upstream: no empty text, arguments an object, results paired', async (up) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(ok(up));
    await fixture.openai.chat.completions.create({
      model: modelOf[up],
      tools: [tools.weather, tools.time].map((t) => ({ type: 'function' as const, function: t })),
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_C1', type: 'function', function: { name: 'get_time', arguments: '' } }, { id: 'call_C2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call_C2', content: 'W-cold' },
        { role: 'tool', tool_call_id: 'call_C1', content: 'T-09:00' },
      ],
    });
    const body = sent();
    if (up === 'anthropic') {
      const assistant = body.messages.find((m: any) => m.role === 'assistant');
      expect(assistant.content.filter((b: any) => b.type === 'text' && b.text === '')).toEqual([]);
      expect(assistant.content.find((b: any) => b.id === 'call_C1').input).toEqual({});
    }
    if (up === 'gemini') {
      const model = body.contents.find((c: any) => c.role === 'model');
      expect(model.parts.filter((p: any) => p.text === '' && p.thoughtSignature === undefined)).toEqual([]);
      expect(model.parts.find((p: any) => p.functionCall?.name === 'get_time').functionCall.args).toEqual({});
    }
    if (up === 'openai-responses') {
      const call = body.input.find((i: any) => i.type === 'function_call' && i.call_id === 'call_C1');
      // The gateway reads "" as no arguments everywhere else ({} to Anthropic and Gemini): Responses gets "{}", as OpenAI sends it.
      expect(call.arguments).toBe('{}');
    }
    expectPaired(up, body, [
      { name: 'get_weather', result: 'W-cold' },
      { name: 'get_time', result: 'T-09:00' },
    ]);
  });
});

describe('responses client: two function_call items, then their outputs, then a second round', () => {
  it.each(['openai-chat', 'anthropic', 'gemini'] as WireStyle[])('→ %s upstream: the parallel calls form one assistant turn answered by the next turn', async (up) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(ok(up));
    await fixture.openai.responses.create({
      model: modelOf[up],
      tools: [tools.weather, tools.time].map((t) => ({ type: 'function' as const, name: t.name, description: t.description, parameters: t.parameters, strict: false })),
      input: [
        { role: 'user', content: 'go' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] } as any,
        { type: 'function_call', call_id: 'toolu_01P', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_Q', name: 'get_time', arguments: '{"tz":"X"}' },
        { type: 'function_call_output', call_id: 'call_Q', output: 'T-1' },
        { type: 'function_call_output', call_id: 'toolu_01P', output: 'W-1' },
        { type: 'function_call', call_id: 'gcall-3', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'gcall-3', output: 'W-2' },
      ],
    });
    const body = sent();
    if (up === 'openai-chat') {
      // An assistant message with tool_calls must be followed by a tool message for each call before any other message.
      const roles = body.messages.map((m: any) => `${m.role}${m.tool_calls ? `:${m.tool_calls.length}` : ''}`);
      expect(roles).toEqual(['user', 'assistant:2', 'tool', 'tool', 'assistant:1', 'tool']);
    }
    if (up === 'anthropic') {
      expect(body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(body.messages[1].content.map((b: any) => b.type)).toEqual(['text', 'tool_use', 'tool_use']);
    }
    if (up === 'gemini') {
      expect(body.contents.map((c: any) => c.role)).toEqual(['user', 'model', 'user', 'model', 'user']);
      expect(body.contents[2].parts.map((p: any) => p.functionResponse.name)).toEqual(['get_time', 'get_weather']);
    }
    expectPaired(up, body, [
      { name: 'get_time', result: 'T-1' },
      { name: 'get_weather', result: 'W-1' },
      { name: 'get_weather', result: 'W-2' },
    ]);
  });
});
