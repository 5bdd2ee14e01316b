/** A Chat (or Responses) client's allowed_tools choice, and its subset, carried to other styles, and the local count billed for tool-call streams without usage. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { ask, chatDeltas, tools } from './tool-wire-helpers.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const anthropicReply = { json: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } };

describe('tool_choice', () => {
  it('a Chat client\'s allowed_tools mode "required" reaches an Anthropic upstream as a forced tool choice (as a Responses client\'s does)', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(anthropicReply as any);
    await fixture.openai.chat.completions.create({
      model: M.anthropic,
      messages: [{ role: 'user', content: 'go' }],
      tools: [{ type: 'function', function: tools.weather }, { type: 'function', function: tools.time }],
      tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_weather' } }, { type: 'function', function: { name: 'get_time' } }] } } as any,
    });
    const body = fixture.upstream.requests.at(-1)!.body as any;
    expect(body.tool_choice).toEqual({ type: 'any' });
  });

  it('control: a Responses client\'s allowed_tools mode "required" reaches Anthropic as { type: any }', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(anthropicReply as any);
    await fixture.openai.responses.create({
      model: M.anthropic,
      input: 'go',
      tools: [{ type: 'function', name: 'get_weather', parameters: tools.weather.parameters, strict: false }, { type: 'function', name: 'get_time', parameters: tools.time.parameters, strict: false }],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_weather' }, { type: 'function', name: 'get_time' }] } as any,
    });
    const body = fixture.upstream.requests.at(-1)!.body as any;
    expect(body.tool_choice).toEqual({ type: 'any' });
  });
});

describe('an allowed_tools subset reaches converted upstreams', () => {
  const chatSubset = (model: string) =>
    fixture.openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'go' }],
      tools: [{ type: 'function', function: tools.weather }, { type: 'function', function: tools.time }],
      tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_time' } }] } } as any,
    });
  const ok = { text: 'ok', stop: 'stop', usage: { input: 3, output: 1 } } as const;

  it('a Chat client\'s subset: Anthropic is declared only the allowed tool (it has no subset choice), and the log says so', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(anthropicReply as any);
    await chatSubset(M.anthropic);
    const body = fixture.upstream.requests.at(-1)!.body as any;
    expect(body.tools.map((tool: any) => tool.name)).toEqual(['get_time']);
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(JSON.stringify((await fixture.lastLog()).warnings)).toContain('only the allowed tools (get_time) are declared');
  });

  it('a Chat client\'s subset under auto: Gemini gets mode AUTO with only the allowed functions declared', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(replyFor('gemini', ok, false));
    await chatSubset(M.gemini);
    const body = fixture.upstream.requests.at(-1)!.body as any;
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(body.tools[0].functionDeclarations.map((declaration: any) => declaration.name)).toEqual(['get_time']);
  });

  it('a Chat client\'s subset: Responses gets its own allowed_tools choice', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(replyFor('openai-responses', ok, false));
    await chatSubset(M.responses);
    const body = fixture.upstream.requests.at(-1)!.body as any;
    expect(body.tool_choice).toEqual({ type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'get_time' }] });
    expect(body.tools.map((tool: any) => tool.name)).toEqual(['get_weather', 'get_time']);
  });

  it('a Responses client\'s subset (required): a Chat upstream is declared only the allowed tool, with tool_choice required', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(replyFor('openai-chat', ok, false));
    await fixture.openai.responses.create({
      model: M.chat,
      input: 'go',
      tools: [{ type: 'function', name: 'get_weather', parameters: tools.weather.parameters, strict: false }, { type: 'function', name: 'get_time', parameters: tools.time.parameters, strict: false }],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_weather' }] } as any,
    });
    const body = fixture.upstream.requests.at(-1)!.body as any;
    expect(body.tools.map((tool: any) => tool.function.name)).toEqual(['get_weather']);
    expect(body.tool_choice).toBe('required');
  });
});

describe('local count of a tool-call stream without usage', () => {
  it.each(['anthropic', 'openai-responses', 'gemini'] as const)('%s client: a Chat upstream streaming a long call with no usage is billed its arguments', async (client) => {
    fixture.upstream.clearQueue();
    const long = JSON.stringify({ city: 'word '.repeat(400) });
    const pieces = long.match(/.{1,50}/gs)!;
    fixture.upstream.enqueue(chatDeltas([{ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, ...pieces.map((p) => ({ tool_calls: [{ index: 0, function: { arguments: p } }] }))], 'tool_calls'));
    const seen = await ask(fixture, client, M.chat);
    expect(seen.calls).toHaveLength(1);
    const log = await fixture.lastLog();
    expect(log.output_tokens).toBeGreaterThan(300);
  });
});
