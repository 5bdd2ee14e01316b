import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply, SseEvent } from '../fakes/scripted-upstream.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';

/**
 * An OpenAI model that declines says so in `message.refusal` (Chat) or a `refusal` content part
 * (Responses), and still ends with `stop` / `completed`. Claude's own refusals end with
 * `stop_reason: "refusal"`; an Anthropic client (Claude Code) branches on it, so a converted refusal says
 * the same, its words kept as the text.
 */
const words = "I'm sorry, but I can't help with that.";
const usage = { prompt_tokens: 9, completion_tokens: 10, total_tokens: 19 };

function chatRefusal(stream: boolean): ScriptedReply {
  const base = { id: 'chatcmpl-r', created: 1760000000, model: 'gpt-4o-mini' };
  if (!stream) {
    return { json: { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: words }, logprobs: null, finish_reason: 'stop' }], usage } };
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseEvent => ({ data: { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] } });
  return {
    sse: [
      chunk({ role: 'assistant', content: null, refusal: null }),
      chunk({ refusal: words.slice(0, 12) }),
      chunk({ refusal: words.slice(12) }),
      chunk({}, 'stop'),
      { data: { ...base, object: 'chat.completion.chunk', choices: [], usage } },
      { data: '[DONE]' },
    ],
  };
}

function responsesRefusal(stream: boolean): ScriptedReply {
  const item = { id: 'msg_r', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: words }] };
  const response = (status: string, output: unknown[], withUsage: boolean) => ({
    id: 'resp_r', object: 'response', created_at: 1760000000, status, model: 'gpt-5-mini', output, error: null, incomplete_details: null,
    usage: withUsage ? { input_tokens: 9, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 19 } : null,
  });
  if (!stream) return { json: response('completed', [item], true) };
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>): SseEvent => ({ event: type, data: { type, sequence_number: sequence++, ...data } });
  const at = { item_id: 'msg_r', output_index: 0, content_index: 0 };
  return {
    sse: [
      event('response.created', { response: response('in_progress', [], false) }),
      event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }),
      event('response.content_part.added', { ...at, part: { type: 'refusal', refusal: '' } }),
      event('response.refusal.delta', { ...at, delta: words.slice(0, 12) }),
      event('response.refusal.delta', { ...at, delta: words.slice(12) }),
      event('response.refusal.done', { ...at, refusal: words }),
      event('response.content_part.done', { ...at, part: { type: 'refusal', refusal: words } }),
      event('response.output_item.done', { output_index: 0, item }),
      event('response.completed', { response: response('completed', [item], true) }),
    ],
  };
}

const cases = [
  { upstream: 'Chat Completions', model: M.chat, reply: chatRefusal },
  { upstream: 'Responses', model: M.responses, reply: responsesRefusal },
];

describe('an OpenAI refusal reaches an Anthropic client as stop_reason refusal', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each(cases)('whole answer from $upstream', async ({ model, reply }) => {
    fixture.upstream.enqueue(reply(false));
    const message = await fixture.anthropic.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'Something disallowed' }] });
    expect(message.stop_reason).toBe('refusal');
    expect(message.content).toEqual([{ type: 'text', text: words }]);
    expect(message.usage).toMatchObject({ input_tokens: 9, output_tokens: 10 });
  });

  it.each(cases)('streamed answer from $upstream (finalMessage)', async ({ model, reply }) => {
    fixture.upstream.enqueue(reply(true));
    const message = await fixture.anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'Something disallowed' }] }).finalMessage();
    expect(message.stop_reason).toBe('refusal');
    expect(message.content).toHaveLength(1);
    expect(message.content[0]).toMatchObject({ type: 'text', text: words });
    expect(message.usage).toMatchObject({ input_tokens: 9, output_tokens: 10 });
  });

  it.each(cases)('a plain answer from $upstream still ends end_turn', async ({ model }) => {
    const plain = model === M.chat
      ? { json: { id: 'c', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: 'Fine.', refusal: null }, finish_reason: 'stop' }], usage } }
      : { json: { id: 'r', object: 'response', created_at: 1, status: 'completed', model, output: [{ id: 'm', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Fine.', annotations: [] }] }], usage: { input_tokens: 9, output_tokens: 10, total_tokens: 19 } } };
    fixture.upstream.enqueue(plain);
    const message = await fixture.anthropic.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] });
    expect(message.stop_reason).toBe('end_turn');
  });
});
