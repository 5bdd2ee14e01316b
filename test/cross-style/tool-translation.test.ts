/**
 * Tool calls in translation (client style × upstream style), from the tool-call audit: parallel calls with
 * hard arguments, interleaved fragments, ids Anthropic refuses, tool results of every shape, parallel flags.
 * Each test states what the client SDK or the upstream vendor must see.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type Answer, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { send, chatBody, anthropicBody, responsesBody, geminiParams, weatherTool, timeTool, type ClientStyle, type Conv } from '../cross-style/clients.js';
import { M, convertedCases, crossPairs, modelOf, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const idsOf: Record<WireStyle, string[]> = {
  'openai-chat': ['call_A1', 'call_B2', 'call_C3'],
  'openai-responses': ['call_R1', 'call_R2', 'call_R3'],
  anthropic: ['toolu_01A', 'toolu_01B', 'toolu_01C'],
  gemini: ['gcall-1', 'gcall-2', 'gcall-3'],
};

const tricky = { location: 'São Paulo "centro" \\ 東京 🌧️', unit: 'c\n"elsius"', note: 'x'.repeat(3000) };

function threeCalls(up: WireStyle): Answer {
  const [a, b, c] = idsOf[up];
  return {
    text: 'Checking.',
    tools: [
      { id: a!, name: 'get_weather', args: JSON.stringify(tricky) },
      { id: b!, name: 'get_time', args: '{}' },
      { id: c!, name: 'get_weather', args: '{"location":"Oslo"}' },
    ],
    stop: 'tool',
    usage: { input: 50, output: 30 },
  };
}

describe('three parallel calls: unicode / escaped quotes / 3000-char arguments, an empty {} call, the same function twice', () => {
  it.each(convertedCases())('$client client ← $up upstream (stream=$stream)', async ({ up, client, stream }) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(replyFor(up, { ...threeCalls(up), geminiCallIds: true }, stream));
    const conv: Conv = { model: modelOf[up], tools: [weatherTool, timeTool], messages: [{ role: 'user', text: 'go' }] };
    const observed = await send(fixture, client, conv, stream);
    expect(observed.tools.map((t) => ({ name: t.name, args: t.args }))).toEqual([
      { name: 'get_weather', args: tricky },
      { name: 'get_time', args: {} },
      { name: 'get_weather', args: { location: 'Oslo' } },
    ]);
    expect(observed.tools.map((t) => t.id)).toEqual(idsOf[up]);
  });
});

/** A Chat Completions stream whose two calls interleave: call 0 opens, call 1 opens, then fragments alternate. */
function interleavedChatStream() {
  const base = { id: 'chatcmpl-il', object: 'chat.completion.chunk', created: 1760000000, model: 'gpt-4o-mini' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] } });
  const a = '{"location":"Paris, FR","unit":"celsius"}';
  const b = '{"tz":"Europe/Paris"}';
  const events: any[] = [chunk({ role: 'assistant', content: null })];
  events.push(chunk({ tool_calls: [{ index: 0, id: 'call_IL0', type: 'function', function: { name: 'get_weather', arguments: '' } }] }));
  events.push(chunk({ tool_calls: [{ index: 1, id: 'call_IL1', type: 'function', function: { name: 'get_time', arguments: '' } }] }));
  const pa = a.match(/.{1,4}/g)!;
  const pb = b.match(/.{1,4}/g)!;
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (pa[i] !== undefined) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: pa[i] } }] }));
    if (pb[i] !== undefined) events.push(chunk({ tool_calls: [{ index: 1, function: { arguments: pb[i] } }] }));
  }
  events.push(chunk({}, 'tool_calls'));
  events.push({ data: { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } } });
  events.push({ data: '[DONE]' });
  return { sse: events };
}

describe('interleaved parallel calls from a Chat Completions upstream', () => {
  const cases = (['openai-responses', 'anthropic', 'gemini'] as ClientStyle[]).flatMap((client) => [false, true].map((stream) => ({ client, stream })));
  it.each(cases)('$client client (stream=$stream): both calls whole with their own ids', async ({ client, stream }) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(interleavedChatStream());
    const conv: Conv = { model: M.chat, tools: [weatherTool, timeTool], messages: [{ role: 'user', text: 'go' }] };
    // Non-streamed clients make the gateway call Chat non-streamed; script a whole answer then.
    if (!stream) {
      fixture.upstream.clearQueue();
      fixture.upstream.enqueue(replyFor('openai-chat', { tools: [{ id: 'call_IL0', name: 'get_weather', args: '{"location":"Paris, FR","unit":"celsius"}' }, { id: 'call_IL1', name: 'get_time', args: '{"tz":"Europe/Paris"}' }], stop: 'tool', usage: { input: 10, output: 20 } }, false));
    }
    const observed = await send(fixture, client, conv, stream);
    expect(observed.tools).toEqual([
      { id: 'call_IL0', name: 'get_weather', args: { location: 'Paris, FR', unit: 'celsius' } },
      { id: 'call_IL1', name: 'get_time', args: { tz: 'Europe/Paris' } },
    ]);
  });
});

describe('tool-call ids the Anthropic API refuses (it requires ^[a-zA-Z0-9_-]+$)', () => {
  // Kimi / Moonshot and other OpenAI compatibles give ids like "functions.get_weather:0"; MCP-based clients too.
  const history = (model: string): Conv => ({
    model,
    tools: [weatherTool, timeTool],
    messages: [
      { role: 'user', text: 'Weather and time in Paris?' },
      { role: 'assistant', tools: [{ id: 'functions.get_weather:0', name: 'get_weather', args: '{"location":"Paris"}' }, { id: 'functions.get_time:1', name: 'get_time', args: '{"tz":"Europe/Paris"}' }] },
      { role: 'tool', results: [{ id: 'functions.get_weather:0', name: 'get_weather', content: 'Sunny' }, { id: 'functions.get_time:1', name: 'get_time', content: '14:00' }] },
    ],
  });
  it.each(['openai-chat', 'openai-responses', 'gemini'] as ClientStyle[])('%s client history → anthropic upstream: ids valid for Anthropic and still paired', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(replyFor('anthropic', { text: 'ok', stop: 'stop', usage: { input: 5, output: 1 } }, false));
    await send(fixture, client, history(M.anthropic), false);
    const body = fixture.upstream.requests.at(-1)!.body;
    const uses = body.messages[1].content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id);
    const results = body.messages[2].content.filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id);
    expect(uses).toHaveLength(2);
    for (const id of [...uses, ...results]) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(results).toEqual(uses);
    expect(new Set(uses).size).toBe(2);
  });
});

describe('tool results: content arrays, JSON objects, error flags, several results for parallel calls', () => {
  it.each(['openai-chat', 'openai-responses', 'gemini'] as WireStyle[])('anthropic client: tool_result with two text blocks, a JSON-object result and an is_error result → %s', async (up) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(replyFor(up, { text: 'ok', stop: 'stop', usage: { input: 5, output: 1 } }, false));
    const body = {
      model: modelOf[up],
      max_tokens: 100,
      tools: [weatherTool, timeTool].map((t) => ({ name: t.name, description: t.description, input_schema: { type: 'object' as const, ...t.parameters } })),
      messages: [
        { role: 'user' as const, content: 'go' },
        {
          role: 'assistant' as const,
          content: [
            { type: 'tool_use' as const, id: 'toolu_A', name: 'get_weather', input: { location: 'Paris' } },
            { type: 'tool_use' as const, id: 'toolu_B', name: 'get_weather', input: { location: 'Rome' } },
            { type: 'tool_use' as const, id: 'toolu_C', name: 'get_time', input: { tz: 'X' } },
          ],
        },
        {
          role: 'user' as const,
          content: [
            { type: 'tool_result' as const, tool_use_id: 'toolu_A', content: [{ type: 'text' as const, text: 'Sunny' }, { type: 'text' as const, text: '21 C' }] },
            { type: 'tool_result' as const, tool_use_id: 'toolu_B', content: '{"temp":14,"sky":"rain"}' },
            { type: 'tool_result' as const, tool_use_id: 'toolu_C', content: 'unknown tz', is_error: true },
          ],
        },
      ],
    };
    await fixture.anthropic.messages.create(body);
    const sent = fixture.upstream.requests.at(-1)!.body;
    switch (up) {
      case 'openai-chat': {
        const tools = sent.messages.filter((m: any) => m.role === 'tool');
        expect(tools.map((m: any) => m.tool_call_id)).toEqual(['toolu_A', 'toolu_B', 'toolu_C']);
        expect(JSON.stringify(tools[0].content)).toContain('Sunny');
        expect(JSON.stringify(tools[0].content)).toContain('21 C');
        expect(tools[1].content).toBe('{"temp":14,"sky":"rain"}');
        expect(JSON.stringify(tools[2].content)).toContain('unknown tz');
        break;
      }
      case 'openai-responses': {
        const outs = sent.input.filter((i: any) => i.type === 'function_call_output');
        expect(outs.map((o: any) => o.call_id)).toEqual(['toolu_A', 'toolu_B', 'toolu_C']);
        expect(JSON.stringify(outs[0].output)).toContain('Sunny');
        expect(JSON.stringify(outs[0].output)).toContain('21 C');
        expect(outs[1].output).toBe('{"temp":14,"sky":"rain"}');
        break;
      }
      case 'gemini': {
        const responses = sent.contents.at(-1).parts.map((p: any) => p.functionResponse);
        expect(responses.map((r: any) => r.name)).toEqual(['get_weather', 'get_weather', 'get_time']);
        expect(JSON.stringify(responses[0].response)).toContain('Sunny');
        expect(JSON.stringify(responses[0].response)).toContain('21 C');
        expect(responses[1].response).toEqual({ temp: 14, sky: 'rain' });
        expect(responses[2].response).toEqual({ error: 'unknown tz' });
        break;
      }
    }
  });

  it.each(['openai-chat', 'openai-responses', 'anthropic'] as WireStyle[])('gemini client: functionResponse with a structured object → %s keeps it as JSON text, paired with its call', async (up) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(replyFor(up, { text: 'ok', stop: 'stop', usage: { input: 5, output: 1 } }, false));
    await fixture.gemini.models.generateContent({
      model: modelOf[up],
      contents: [
        { role: 'user', parts: [{ text: 'go' }] },
        { role: 'model', parts: [{ functionCall: { id: 'fc1', name: 'get_weather', args: { location: 'Paris' } } }, { functionCall: { id: 'fc2', name: 'get_time', args: { tz: 'X' } } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'fc1', name: 'get_weather', response: { temperature: 21, sky: 'clear' } } }, { functionResponse: { id: 'fc2', name: 'get_time', response: { output: '14:00' } } }] },
      ],
      config: { tools: [{ functionDeclarations: [weatherTool, timeTool].map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }] },
    });
    const sent = fixture.upstream.requests.at(-1)!.body;
    let pairs: [string, string][] = [];
    if (up === 'openai-chat') pairs = sent.messages.filter((m: any) => m.role === 'tool').map((m: any) => [m.tool_call_id, m.content]);
    if (up === 'openai-responses') pairs = sent.input.filter((i: any) => i.type === 'function_call_output').map((o: any) => [o.call_id, o.output]);
    if (up === 'anthropic') pairs = sent.messages.at(-1).content.map((b: any) => [b.tool_use_id, typeof b.content === 'string' ? b.content : b.content.map((c: any) => c.text).join('')]);
    expect(pairs.map(([id]) => id)).toEqual(['fc1', 'fc2']);
    expect(JSON.parse(pairs[0]![1])).toEqual({ temperature: 21, sky: 'clear' });
    expect(pairs[1]![1]).toBe('14:00');
  });
});

describe('parallel_tool_calls: false / disable_parallel_tool_use', () => {
  it('openai-responses client parallel_tool_calls false → anthropic: disable_parallel_tool_use', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(replyFor('anthropic', { text: 'ok', stop: 'stop', usage: { input: 5, output: 1 } }, false));
    await fixture.openai.responses.create({ ...responsesBody({ model: M.anthropic, tools: [weatherTool], messages: [{ role: 'user', text: 'go' }] }), parallel_tool_calls: false });
    expect(fixture.upstream.requests.at(-1)!.body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
  });
  it.each(['openai-chat', 'openai-responses'] as WireStyle[])('anthropic client disable_parallel_tool_use → %s: parallel_tool_calls false', async (up) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(replyFor(up, { text: 'ok', stop: 'stop', usage: { input: 5, output: 1 } }, false));
    const body = anthropicBody({ model: modelOf[up], tools: [weatherTool], messages: [{ role: 'user', text: 'go' }] });
    await fixture.anthropic.messages.create({ ...body, tool_choice: { type: 'auto', disable_parallel_tool_use: true } });
    const sent = fixture.upstream.requests.at(-1)!.body;
    expect(sent.parallel_tool_calls).toBe(false);
  });
  it('openai-chat client parallel_tool_calls false + tool_choice required → anthropic: any + disable_parallel_tool_use', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(replyFor('anthropic', { text: 'ok', stop: 'stop', usage: { input: 5, output: 1 } }, false));
    await fixture.openai.chat.completions.create({ ...chatBody({ model: M.anthropic, tools: [weatherTool], toolChoice: 'required', messages: [{ role: 'user', text: 'go' }] }), parallel_tool_calls: false });
    expect(fixture.upstream.requests.at(-1)!.body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
  });
});
