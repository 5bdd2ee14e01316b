import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type Answer, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { anthropicBody, chatBody, responsesBody, timeTool, weatherTool, type Conv } from './clients.js';
import { callerKey, modelOf, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

const answer: Answer = {
  thinking: { text: 'Let me think about both.', signature: 'SIGabc' },
  text: 'Checking both.',
  tools: [
    { id: 'call_A1', name: 'get_weather', args: '{"location":"Paris"}' },
    { id: 'call_B2', name: 'get_time', args: '{"tz":"Europe/Paris"}' },
  ],
  stop: 'tool',
  usage: { input: 50, output: 30, reasoning: 8 },
};
const conv = (up: WireStyle): Conv => ({ model: modelOf[up], tools: [weatherTool, timeTool], messages: [{ role: 'user', text: 'Weather and time?' }] });

/** The client's SSE body read raw: the order and numbering of events is what the SDKs rely on, and hide once parsed. */
async function rawSse(fixture: CrossStyleFixture, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ event?: string; data: any }[]> {
  const response = await fetch(`${fixture.gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  const text = await response.text();
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      return { event, data: data === '[DONE]' ? '[DONE]' : JSON.parse(data) };
    });
}

describe('converted streams order their events exactly as each SDK expects', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each(['openai-chat', 'openai-responses', 'gemini'] as WireStyle[])('anthropic client ← %s: blocks open and close in order, indexes count from 0, message_stop last', async (up) => {
    fixture.upstream.enqueue(replyFor(up, answer, true));
    const events = await rawSse(fixture, '/v1/messages', { ...anthropicBody(conv(up)), stream: true }, { 'anthropic-version': '2023-06-01' });
    const types = events.map((e) => e.data.type);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types.at(-2)).toBe('message_delta');
    for (const e of events) expect(e.event).toBe(e.data.type);
    let open: number | undefined;
    let next = 0;
    for (const e of events) {
      if (e.data.type === 'content_block_start') {
        expect(open).toBeUndefined();
        expect(e.data.index).toBe(next++);
        open = e.data.index;
      } else if (e.data.type === 'content_block_delta') expect(e.data.index).toBe(open);
      else if (e.data.type === 'content_block_stop') {
        expect(e.data.index).toBe(open);
        open = undefined;
      }
    }
    const starts = events.filter((e) => e.data.type === 'content_block_start').map((e) => e.data.content_block.type);
    expect(starts.filter((t) => t === 'tool_use').length).toBe(2);
    expect(events.at(-2)!.data).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 30 } });
  });

  it.each(['openai-chat', 'anthropic', 'gemini'] as WireStyle[])('openai-responses client ← %s: sequence numbers, output indexes, added/done pairs and the final output agree', async (up) => {
    fixture.upstream.enqueue(replyFor(up, answer, true));
    const events = await rawSse(fixture, '/v1/responses', { ...responsesBody(conv(up)), stream: true });
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    for (const e of events) expect(e.event).toBe(e.data.type);
    expect(events[0]!.data.type).toBe('response.created');
    const last = events.at(-1)!.data;
    expect(last.type).toBe('response.completed');
    const added = events.filter((e) => e.data.type === 'response.output_item.added').map((e) => e.data.output_index);
    const done = events.filter((e) => e.data.type === 'response.output_item.done');
    expect(added).toEqual(added.map((_, i) => i));
    expect([...done.map((e) => e.data.output_index)].sort()).toEqual(added);
    expect(last.response.output).toEqual([...done].sort((a, b) => a.data.output_index - b.data.output_index).map((e) => e.data.item));
    const calls = last.response.output.filter((item: any) => item.type === 'function_call');
    expect(calls.map((c: any) => [c.call_id, c.name])).toEqual([
      [up === 'gemini' ? expect.any(String) : 'call_A1', 'get_weather'],
      [expect.any(String), 'get_time'],
    ]);
    expect(last.response.usage).toMatchObject({ input_tokens: 50, output_tokens: 30 });
  });

  it.each(['openai-responses', 'anthropic', 'gemini'] as WireStyle[])('openai-chat client ← %s: role first, tool_call indexes 0 and 1 with id+name in their first fragment, finish then usage then [DONE]', async (up) => {
    fixture.upstream.enqueue(replyFor(up, answer, true));
    const events = await rawSse(fixture, '/v1/chat/completions', { ...chatBody(conv(up)), stream: true, stream_options: { include_usage: true } });
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => e.data);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const ids = new Set(chunks.map((c) => c.id));
    expect(ids.size).toBe(1);
    const toolFragments = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    const firsts = new Map<number, any>();
    for (const fragment of toolFragments) if (!firsts.has(fragment.index)) firsts.set(fragment.index, fragment);
    expect([...firsts.keys()]).toEqual([0, 1]);
    for (const first of firsts.values()) expect(first).toMatchObject({ id: expect.any(String), type: 'function', function: { name: expect.any(String) } });
    const finishIndex = chunks.findIndex((c) => c.choices[0]?.finish_reason != null);
    expect(chunks[finishIndex].choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1).choices).toEqual([]);
    expect(chunks.at(-1).usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 30, completion_tokens_details: { reasoning_tokens: up === 'anthropic' ? 0 : 8 } });
  });
});
