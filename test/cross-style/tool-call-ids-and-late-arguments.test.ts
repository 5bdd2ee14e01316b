/**
 * Three suspicions left by the tool-call audit (test/cross-style/tool-*.test.ts), probed through the SDKs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply, ScriptedRequest, SseEvent } from '../fakes/scripted-upstream.js';
import { anthropicWhole } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { ask, chatDeltas, type Client } from './tool-wire-helpers.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const clients: Client[] = ['anthropic', 'openai-responses', 'gemini'];

/** An Anthropic upstream that refuses repeated tool_use ids, as Anthropic does. */
function strictAnthropic(request: ScriptedRequest): ScriptedReply {
  const ids: string[] = [];
  for (const message of (request.body as any).messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) if (block.type === 'tool_use') ids.push(block.id);
  }
  if (new Set(ids).size !== ids.length) {
    return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'messages: `tool_use` ids must be unique' }, request_id: 'req_dup' } };
  }
  return anthropicWhole({ text: 'done', usage: { input: 30, output: 2 } });
}

const anthropicTools = [{ name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];

describe('two parallel Chat calls sharing one id', () => {
  it.each(clients)('%s client: the two calls reach the client with distinct ids', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(
      chatDeltas(
        [
          { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
          { tool_calls: [{ index: 1, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] },
        ],
        'tool_calls',
        { input: 10, output: 10 },
      ),
    );
    const seen = await ask(fixture, client, M.chat);
    expect(seen.calls.map((call) => call.args)).toEqual([{ city: 'Oslo' }, { city: 'Rome' }]);
    const ids = seen.calls.map((call) => call.id);
    expect(new Set(ids).size, `ids ${JSON.stringify(ids)}: a client replays them, and Anthropic refuses repeats`).toBe(2);
  });

  it('anthropic client replays that turn to an Anthropic channel: answered, not refused', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(
      chatDeltas(
        [
          { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
          { tool_calls: [{ index: 1, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] },
        ],
        'tool_calls',
        { input: 10, output: 10 },
      ),
    );
    const first = { model: M.chat, max_tokens: 256, tools: anthropicTools, messages: [{ role: 'user' as const, content: 'Weather in Oslo and Rome?' }] };
    const message = await fixture.anthropic.messages.stream(first).finalMessage();
    const uses = message.content.filter((block) => block.type === 'tool_use') as any[];
    expect(uses).toHaveLength(2);
    fixture.upstream.enqueue(strictAnthropic);
    const replay = await fixture.anthropic.messages
      .create({
        model: M.anthropic,
        max_tokens: 64,
        tools: anthropicTools,
        messages: [
          ...first.messages,
          { role: 'assistant', content: message.content as any },
          { role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: `weather of ${use.input.city}` })) },
        ],
      })
      .then(
        (answer) => ({ status: 200, answer }),
        (error: any) => ({ status: error.status as number, answer: error.error }),
      );
    expect(replay, `the replayed history is one the Anthropic upstream accepts; now: ${JSON.stringify(replay)}`).toMatchObject({ status: 200 });
  });
});

describe('argument deltas after finish_reason', () => {
  /** A call whose arguments finish in a chunk after the finish_reason chunk (some compatible servers). */
  function lateArguments(): ScriptedReply {
    const base = { id: 'chatcmpl-late', object: 'chat.completion.chunk', created: 1760000000, model: 'compat-model' };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseEvent => ({ data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] } });
    return {
      sse: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_late', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
        chunk({}, 'tool_calls'),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
        { data: { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 8, total_tokens: 18 } } },
        { data: '[DONE]' },
      ],
    };
  }

  it.each(clients)('%s client: the arguments arrive whole', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(lateArguments());
    const seen = await ask(fixture, client, M.chat);
    expect(seen.calls.map((call) => call.args)).toEqual([{ city: 'Oslo' }]);
  });

  it('openai-chat client (passthrough): the arguments arrive whole', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(lateArguments());
    const seen = await ask(fixture, 'openai-chat', M.chat);
    expect(seen.calls.map((call) => call.args)).toEqual([{ city: 'Oslo' }]);
  });
});

describe('generated ids for id-less calls', () => {
  /** Two id-less calls; the answer's own id as the compatible server gives it. */
  function idless(chatId: string): ScriptedReply {
    const reply = chatDeltas(
      [
        { tool_calls: [{ index: 0, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { tool_calls: [{ index: 1, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] },
      ],
      'tool_calls',
      { input: 10, output: 10 },
    );
    for (const event of reply.sse!) if (typeof event.data === 'object') (event.data as any).id = chatId;
    return reply;
  }

  for (const chatId of ['chatcmpl-compat', '']) {
    it.each(clients)(`%s client, upstream answer id ${JSON.stringify(chatId)}: unique within an answer and across two answers`, async (client) => {
      fixture.upstream.clearQueue();
      fixture.upstream.enqueue(idless(chatId), idless(chatId));
      const first = await ask(fixture, client, M.chat);
      const second = await ask(fixture, client, M.chat);
      const ids = [...first.calls, ...second.calls].map((call) => call.id);
      expect(ids).toHaveLength(4);
      expect(ids.every((id) => typeof id === 'string' && id !== ''), JSON.stringify(ids)).toBe(true);
      expect(new Set(ids).size, `ids ${JSON.stringify(ids)}: both turns end up in one history`).toBe(4);
    });
  }

  it('anthropic client: two turns of id-less calls (constant upstream answer id) replayed to an Anthropic channel are answered', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(idless('chatcmpl-compat'), idless('chatcmpl-compat'));
    const history: any[] = [{ role: 'user', content: 'Weather in Oslo and Rome?' }];
    for (let turn = 0; turn < 2; turn += 1) {
      const message = await fixture.anthropic.messages.stream({ model: M.chat, max_tokens: 256, tools: anthropicTools, messages: history }).finalMessage();
      const uses = message.content.filter((block) => block.type === 'tool_use') as any[];
      history.push({ role: 'assistant', content: message.content });
      history.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result', tool_use_id: use.id, content: `weather of ${use.input.city}` })) });
    }
    fixture.upstream.enqueue(strictAnthropic);
    const replay = await fixture.anthropic.messages.create({ model: M.anthropic, max_tokens: 64, tools: anthropicTools, messages: history }).then(
      () => ({ status: 200 }),
      (error: any) => ({ status: error.status as number, message: error.error?.error?.message }),
    );
    expect(replay).toEqual({ status: 200 });
  });
});
