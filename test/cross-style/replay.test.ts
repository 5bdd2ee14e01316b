import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { geminiParams, send, timeTool, weatherTool, type Conv } from './clients.js';
import { M, crossPairs, modelOf, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

const cases = crossPairs();

const history = (model: string): Conv => ({
  model,
  system: ['Be brief.', 'Answer in English.'],
  tools: [weatherTool, timeTool],
  messages: [
    { role: 'user', text: 'Weather and time in Paris?' },
    {
      role: 'assistant',
      text: 'Checking both.',
      tools: [
        { id: 'toolu_X1', name: 'get_weather', args: '{"location":"Paris, FR"}' },
        { id: 'toolu_Y2', name: 'get_time', args: '{"tz":"Europe/Paris"}' },
      ],
    },
    {
      role: 'tool',
      results: [
        { id: 'toolu_X1', name: 'get_weather', content: 'Sunny, 21 C' },
        { id: 'toolu_Y2', name: 'get_time', content: 'tz database unavailable', isError: true },
      ],
    },
  ],
});

describe('multi-turn replay of assistant tool calls and tool results into the upstream style', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each(cases)('$client client history → $up upstream body', async ({ up, client }) => {
    fixture.upstream.enqueue(replyFor(up, { text: 'Sunny and 14:00.', stop: 'stop', usage: { input: 80, output: 6 } }, false));
    const observed = await send(fixture, client, history(modelOf[up]), false);
    expect(observed.text).toBe('Sunny and 14:00.');
    const body = fixture.upstream.requests.at(-1)!.body;
    // Error flag survives where both styles have one (Anthropic is_error, Gemini response.error).
    const errorFlagCarried = client === 'anthropic' || client === 'gemini';
    switch (up) {
      case 'openai-chat': {
        expect(body.messages.filter((m: any) => m.role === 'system').map((m: any) => m.content)).toEqual(['Be brief.', 'Answer in English.']);
        const assistant = body.messages.find((m: any) => m.role === 'assistant');
        expect(assistant.content).toBe('Checking both.');
        expect(assistant.tool_calls.map((c: any) => [c.id, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
          ['toolu_X1', 'get_weather', { location: 'Paris, FR' }],
          ['toolu_Y2', 'get_time', { tz: 'Europe/Paris' }],
        ]);
        const tools = body.messages.filter((m: any) => m.role === 'tool');
        expect(tools.map((m: any) => [m.tool_call_id, m.content])).toEqual([
          ['toolu_X1', 'Sunny, 21 C'],
          ['toolu_Y2', 'tz database unavailable'],
        ]);
        expect(body.messages.at(-1).role).toBe('tool');
        break;
      }
      case 'anthropic': {
        expect(body.system === 'Be brief.\n\nAnswer in English.' || JSON.stringify(body.system) === JSON.stringify([{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Answer in English.' }])).toBe(true);
        expect(body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
        expect(body.messages[1].content).toEqual([
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_use', id: 'toolu_X1', name: 'get_weather', input: { location: 'Paris, FR' } },
          { type: 'tool_use', id: 'toolu_Y2', name: 'get_time', input: { tz: 'Europe/Paris' } },
        ]);
        const results = body.messages[2].content;
        expect(results.map((r: any) => [r.type, r.tool_use_id])).toEqual([
          ['tool_result', 'toolu_X1'],
          ['tool_result', 'toolu_Y2'],
        ]);
        expect(JSON.stringify(results[0].content)).toContain('Sunny, 21 C');
        expect(JSON.stringify(results[1].content)).toContain('tz database unavailable');
        if (errorFlagCarried) expect(results[1].is_error).toBe(true);
        break;
      }
      case 'gemini': {
        expect(body.systemInstruction.parts.map((p: any) => p.text)).toEqual(['Be brief.', 'Answer in English.']);
        expect(body.contents.map((c: any) => c.role)).toEqual(['user', 'model', 'user']);
        const model = body.contents[1].parts;
        expect(model[0]).toEqual({ text: 'Checking both.' });
        expect(model.slice(1).map((p: any) => [p.functionCall.name, p.functionCall.args])).toEqual([
          ['get_weather', { location: 'Paris, FR' }],
          ['get_time', { tz: 'Europe/Paris' }],
        ]);
        const responses = body.contents[2].parts.map((p: any) => p.functionResponse);
        expect(responses.map((r: any) => r.name)).toEqual(['get_weather', 'get_time']);
        expect(JSON.stringify(responses[0].response)).toContain('Sunny, 21 C');
        if (errorFlagCarried) expect(responses[1].response).toEqual({ error: 'tz database unavailable' });
        break;
      }
      case 'openai-responses': {
        expect(body.instructions).toContain('Be brief.');
        expect(body.instructions).toContain('Answer in English.');
        const calls = body.input.filter((i: any) => i.type === 'function_call');
        expect(calls.map((c: any) => [c.call_id, c.name, JSON.parse(c.arguments)])).toEqual([
          ['toolu_X1', 'get_weather', { location: 'Paris, FR' }],
          ['toolu_Y2', 'get_time', { tz: 'Europe/Paris' }],
        ]);
        const outputs = body.input.filter((i: any) => i.type === 'function_call_output');
        expect(outputs.map((o: any) => [o.call_id, o.output])).toEqual([
          ['toolu_X1', 'Sunny, 21 C'],
          ['toolu_Y2', 'tz database unavailable'],
        ]);
        break;
      }
    }
  });

  it('gemini client history without call ids → anthropic: generated tool_use ids pair with their tool_results', async () => {
    fixture.upstream.enqueue(replyFor('anthropic', { text: 'ok', stop: 'stop', usage: { input: 80, output: 1 } }, false));
    const params = geminiParams(history(M.anthropic), false);
    await fixture.gemini.models.generateContent(params);
    const body = fixture.upstream.requests.at(-1)!.body;
    const uses = body.messages[1].content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id);
    const results = body.messages[2].content.map((b: any) => b.tool_use_id);
    expect(uses.length).toBe(2);
    expect(new Set(uses).size).toBe(2);
    expect(results).toEqual(uses);
    expect(body.messages[2].content[1].is_error).toBe(true);
  });

  it('gemini client history without ids, same function called twice → openai-chat: results pair by order', async () => {
    fixture.upstream.enqueue(replyFor('openai-chat', { text: 'ok', stop: 'stop', usage: { input: 80, output: 1 } }, false));
    const conv: Conv = {
      model: M.chat,
      tools: [weatherTool],
      messages: [
        { role: 'user', text: 'Paris and Rome?' },
        { role: 'assistant', tools: [{ id: 'a', name: 'get_weather', args: '{"location":"Paris"}' }, { id: 'b', name: 'get_weather', args: '{"location":"Rome"}' }] },
        { role: 'tool', results: [{ id: 'a', name: 'get_weather', content: 'P-sunny' }, { id: 'b', name: 'get_weather', content: 'R-rain' }] },
      ],
    };
    await fixture.gemini.models.generateContent(geminiParams(conv, false));
    const body = fixture.upstream.requests.at(-1)!.body;
    const calls = body.messages.find((m: any) => m.role === 'assistant').tool_calls;
    const tools = body.messages.filter((m: any) => m.role === 'tool');
    expect(tools.map((t: any) => t.tool_call_id)).toEqual(calls.map((c: any) => c.id));
    expect(tools.map((t: any) => t.content)).toEqual(['P-sunny', 'R-rain']);
    expect(calls.map((c: any) => JSON.parse(c.function.arguments).location)).toEqual(['Paris', 'Rome']);
  });
});
