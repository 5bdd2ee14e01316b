/**
 * From the Responses audit: a converted Responses stream (Chat, Anthropic, Gemini upstreams) keeps the
 * invariants a strict reader checks — event order, `sequence_number` from 0 without gaps, item ids and
 * indexes, function-call arguments, reasoning summaries — and the openai SDK's helpers read it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, streamErrorEvent, type Answer, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { callerKey, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, J, parseSse } from '../responses-api/responses-support.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const converted: WireStyle[] = ['openai-chat', 'anthropic', 'gemini'];
const tools = [
  { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
  { type: 'function', name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } },
];
const full: Answer = {
  thinking: { text: 'Let me think about both.', signature: 'SIGabc' },
  text: 'Checking both.',
  tools: [
    { id: 'call_A1', name: 'get_weather', args: '{"location":"Paris"}' },
    { id: 'call_B2', name: 'get_time', args: '{"tz":"Europe/Paris"}' },
  ],
  stop: 'tool',
  usage: { input: 50, output: 30, reasoning: 8 },
};

async function raw(body: unknown) {
  const response = await fetch(`${fixture.gateway.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: J(body) });
  return { status: response.status, events: parseSse(await response.text()) };
}

/** The invariants a strict Responses stream reader checks. */
function checkStrict(events: { event: string | undefined; data: any }[]) {
  const problems: string[] = [];
  const items = new Map<number, any>();
  const parts = new Map<string, any>();
  const args = new Map<number, string>();
  const texts = new Map<string, string>();
  events.forEach((e, i) => {
    const d = e.data;
    if (d.sequence_number !== i) problems.push(`#${i} ${d.type} sequence_number ${d.sequence_number}`);
    if (e.event !== d.type) problems.push(`#${i} event ${e.event} != type ${d.type}`);
    if (d.type === 'response.output_item.added') {
      if (items.has(d.output_index)) problems.push(`#${i} output_index ${d.output_index} added twice`);
      items.set(d.output_index, d.item);
    } else if ('item_id' in d) {
      const item = items.get(d.output_index);
      if (item === undefined) problems.push(`#${i} ${d.type} on unknown output_index ${d.output_index}`);
      else if (item.id !== d.item_id) problems.push(`#${i} ${d.type} item_id ${d.item_id} != ${item.id}`);
    }
    if (d.type === 'response.content_part.added') parts.set(`${d.output_index}/${d.content_index}`, d.part);
    if (d.type === 'response.output_text.delta') {
      if (!parts.has(`${d.output_index}/${d.content_index}`)) problems.push(`#${i} delta before content_part.added`);
      texts.set(`${d.output_index}/${d.content_index}`, (texts.get(`${d.output_index}/${d.content_index}`) ?? '') + d.delta);
    }
    if (d.type === 'response.output_text.done' && texts.get(`${d.output_index}/${d.content_index}`) !== d.text) problems.push(`#${i} output_text.done text differs from deltas`);
    if (d.type === 'response.function_call_arguments.delta') args.set(d.output_index, (args.get(d.output_index) ?? '') + d.delta);
    if (d.type === 'response.function_call_arguments.done' && (args.get(d.output_index) ?? '') !== d.arguments) problems.push(`#${i} arguments.done differs from deltas`);
    if (d.type === 'response.output_item.done') {
      const added = items.get(d.output_index);
      if (added === undefined) problems.push(`#${i} done for unknown output_index`);
      else {
        if (added.id !== d.item.id) problems.push(`#${i} done item id ${d.item.id} != added ${added.id}`);
        if (added.type !== d.item.type) problems.push(`#${i} done item type differs`);
        if (d.item.type === 'function_call' && (added.call_id !== d.item.call_id || added.name !== d.item.name)) problems.push(`#${i} call_id/name changed between added and done`);
      }
    }
  });
  return problems;
}

describe('converted Responses streams satisfy a strict reader and the SDK', () => {
  it.each(converted)('%s upstream: thinking + text + two tools', async (up) => {
    fixture.primary[up].enqueue(replyFor(up, full, true));
    const { result } = await booked(fixture, () => raw({ model: modelOf[up], input: 'Weather and time?', tools, stream: true, reasoning: { effort: 'low', summary: 'auto' } }));
    const events = result!.events;
    expect(checkStrict(events)).toEqual([]);
    expect(events.slice(0, 2).map((e) => e.data.type)).toEqual(['response.created', 'response.in_progress']);
    expect(events.at(-1)!.data.type).toBe('response.completed');
    const final = events.at(-1)!.data.response;
    expect(final.usage).toMatchObject({ input_tokens: 50, output_tokens: 30, output_tokens_details: { reasoning_tokens: up === 'anthropic' ? 0 : 8 }, total_tokens: 80 });
    const reasoning = final.output.find((item: any) => item.type === 'reasoning');
    expect(reasoning.summary).toEqual([{ type: 'summary_text', text: full.thinking!.text }]);
    const calls = final.output.filter((item: any) => item.type === 'function_call');
    expect(calls.map((c: any) => [c.name, c.arguments, c.status])).toEqual([
      ['get_weather', '{"location":"Paris"}', 'completed'],
      ['get_time', '{"tz":"Europe/Paris"}', 'completed'],
    ]);
    expect(new Set(calls.map((c: any) => c.call_id)).size).toBe(2);
  });

  it.each(converted)('%s upstream: the SDK stream reads it and finalResponse() agrees', async (up) => {
    fixture.primary[up].enqueue(replyFor(up, full, true));
    const seen: string[] = [];
    const { result, error } = await booked(fixture, async () => {
      const runner = fixture.sdk.openai.responses.stream({ model: modelOf[up], input: 'Weather and time?', tools: tools as any, reasoning: { effort: 'low', summary: 'auto' } });
      runner.on('event', (e) => void seen.push(e.type));
      return runner.finalResponse();
    });
    expect(error).toBeUndefined();
    expect(result!.output_text).toBe('Checking both.');
    expect(result!.status).toBe('completed');
    expect(seen).toContain('response.reasoning_summary_text.delta');
  });

  it.each(converted)('%s upstream: a length stop mid tool-call ends response.incomplete with max_output_tokens', async (up) => {
    fixture.primary[up].enqueue(replyFor(up, { text: 'Let me', tools: [{ id: 'call_x', name: 'get_weather', args: up === 'gemini' ? '{"location":"Pa"}' : '{"location":"Pa' }], stop: 'length', usage: { input: 10, output: 5 } }, true));
    const { result } = await booked(fixture, () => raw({ model: modelOf[up], input: 'Weather?', tools, stream: true, max_output_tokens: 5 }));
    const events = result!.events;
    expect(checkStrict(events)).toEqual([]);
    const last = events.at(-1)!.data;
    expect(last.type).toBe('response.incomplete');
    expect(last.response.status).toBe('incomplete');
    expect(last.response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(last.response.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
  });
});

describe('an upstream error mid-stream', () => {
  it.each(converted)('%s upstream: the stream ends with error / response.failed, sequence numbers intact, and the SDK raises', async (up) => {
    const whole = replyFor(up, { text: ['Partial', ' answer', ' more'], usage: { input: 10, output: 5 } }, true);
    const kept: Record<string, number> = { 'openai-chat': 3, anthropic: 4, gemini: 2 };
    fixture.primary[up].enqueue({ ...whole, sse: [...whole.sse!.slice(0, kept[up]), streamErrorEvent(up, 'Upstream overloaded')] });
    const { result } = await booked(fixture, () => raw({ model: modelOf[up], input: 'Hi', stream: true }));
    const events = result!.events;
    expect(checkStrict(events)).toEqual([]);
    const types = events.map((e) => e.data.type);
    expect(types).toContain('error');
    expect(types.at(-1)).toBe('response.failed');
    const failed = events.at(-1)!.data.response;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ message: expect.stringContaining('Upstream overloaded') });
  });

  it.each(converted)('%s upstream: responses.stream().finalResponse() raises', async (up) => {
    const whole = replyFor(up, { text: ['Partial', ' answer', ' more'], usage: { input: 10, output: 5 } }, true);
    const kept: Record<string, number> = { 'openai-chat': 3, anthropic: 4, gemini: 2 };
    fixture.primary[up].enqueue({ ...whole, sse: [...whole.sse!.slice(0, kept[up]), streamErrorEvent(up, 'Upstream overloaded')] });
    const { result, error } = await booked(fixture, () => fixture.sdk.openai.responses.stream({ model: modelOf[up], input: 'Hi' }).finalResponse());
    expect(error, `resolved with status ${result?.status}`).toBeDefined();
    expect(String(error.message)).toContain('Upstream overloaded');
  });
});
