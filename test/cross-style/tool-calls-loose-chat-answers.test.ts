/**
 * Looser Chat Completions answers some compatible servers give for tool calls: a whole answer whose tool
 * call has no id (the stream decoder makes one; the whole-answer parser should too), and arguments sent as
 * a JSON object rather than JSON text (the request parser already takes both).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { ask, chatDeltas, type Client } from './tool-wire-helpers.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const whole = (toolCalls: unknown[], finish = 'tool_calls') => ({
  json: {
    id: 'chatcmpl-loose', object: 'chat.completion', created: 1760000000, model: 'compat',
    choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: toolCalls }, finish_reason: finish }],
    usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 },
  },
});

const clients: Client[] = ['anthropic', 'openai-responses', 'gemini'];

describe('whole Chat answer, tool call without an id', () => {
  it.each(clients)('%s client: the call arrives with a generated id, not a 502', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(whole([{ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }]));
    const seen = await ask(fixture, client, M.chat, false);
    expect(seen.calls.map((c) => ({ name: c.name, args: c.args }))).toEqual([{ name: 'get_weather', args: { city: 'Oslo' } }]);
    if (client !== 'gemini') expect(seen.calls[0]!.id).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe('Chat tool-call arguments sent as a JSON object', () => {
  it.each(clients)('%s client, whole answer: the arguments are kept', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(whole([{ id: 'call_O1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Oslo' } } }]));
    const seen = await ask(fixture, client, M.chat, false);
    expect(seen.calls.map((c) => ({ name: c.name, args: c.args }))).toEqual([{ name: 'get_weather', args: { city: 'Oslo' } }]);
  });

  it.each(clients)('%s client, stream: the arguments are kept (not silently replaced with {})', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(chatDeltas([{ tool_calls: [{ index: 0, id: 'call_O2', type: 'function', function: { name: 'get_weather', arguments: { city: 'Oslo' } } }] }], 'tool_calls', { input: 4, output: 6 }));
    const seen = await ask(fixture, client, M.chat, true);
    expect(seen.calls.map((c) => ({ name: c.name, args: c.args }))).toEqual([{ name: 'get_weather', args: { city: 'Oslo' } }]);
  });
});

describe('a whole Chat answer that is no chat completion at all (a 200)', () => {
  it('anthropic client: a 502 in its envelope (the channel failed, tried like a 5xx), not a 500; nothing charged, as for a 2xx error document', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue({ json: { id: 'chatcmpl-broken', object: 'chat.completion', choices: 'broken', usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 } } });
    const error = await ask(fixture, 'anthropic', M.chat, false).then(() => undefined, (caught: any) => caught);
    expect(error?.status).toBe(502);
    expect(error?.error).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    const log = await fixture.lastLog();
    expect(log).toMatchObject({ status: 502, quota: 0 });
    expect(log.attempts[0]).toMatchObject({ status: 502, error: expect.stringContaining("the upstream's answer could not be read") });
  });
});
