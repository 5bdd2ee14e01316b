/** A Chat client's allowed_tools choice carried to other styles, and the local count billed for tool-call streams without usage. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
