/**
 * OpenAI bills each `web_search_call` the moment the search ran. A Responses stream on a Responses channel
 * that is cut after its searches finished (upstream reset, or the client leaving mid-answer) still bills the
 * searches it saw finished — docs/behaviour.md "Billing": "the `web_search_call` items of a Responses answer
 * (its `response.completed` output, else the items seen finished)". From the Responses audit: such a stream
 * billed 0 searches, on the pass-through route and behind every converted client alike. Through the SDKs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { booked } from '../support/booked-request.js';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from './billing-fixture.js';

/** $0.01 a search at 500,000 quota per unit: 5,000 each. */
const perSearch = 5_000;
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, extraPrice: { web_search: 0.01 } });
});
afterAll(async () => fixture?.close());

const model = modelOf['openai-responses'];
const ev = (data: Record<string, unknown>) => ({ event: String(data.type), data });
const searchCall = (id: string) => ({ id, type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'weather paris' } });
const response = (status: string, output: unknown[] = [], usage: unknown = null) => ({ id: 'resp_ws_cut', object: 'response', created_at: 1_760_000_000, status, model: 'gpt-5', output, usage, error: null, incomplete_details: null });

/** Two searches finished, then the message starts: text deltas, and (unless `completed`) no response.completed. */
function searchedThenText(completed?: { usage: unknown }): { event: string; data: Record<string, unknown> }[] {
  let seq = 0;
  const e = (data: Record<string, unknown>) => ev({ ...data, sequence_number: seq++ });
  const message = { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'It is sunny in Paris', annotations: [] }] };
  return [
    e({ type: 'response.created', response: response('in_progress') }),
    e({ type: 'response.output_item.added', output_index: 0, item: { id: 'ws_1', type: 'web_search_call', status: 'in_progress' } }),
    e({ type: 'response.output_item.done', output_index: 0, item: searchCall('ws_1') }),
    e({ type: 'response.output_item.added', output_index: 1, item: { id: 'ws_2', type: 'web_search_call', status: 'in_progress' } }),
    e({ type: 'response.output_item.done', output_index: 1, item: searchCall('ws_2') }),
    e({ type: 'response.output_item.added', output_index: 2, item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } }),
    e({ type: 'response.content_part.added', output_index: 2, item_id: 'msg_1', content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
    e({ type: 'response.output_text.delta', output_index: 2, item_id: 'msg_1', content_index: 0, delta: 'It is sunny' }),
    e({ type: 'response.output_text.delta', output_index: 2, item_id: 'msg_1', content_index: 0, delta: ' in Paris' }),
    ...(completed === undefined
      ? []
      : [
          e({ type: 'response.output_item.done', output_index: 2, item: message }),
          e({ type: 'response.completed', response: response('completed', [searchCall('ws_1'), searchCall('ws_2'), message], completed.usage) }),
        ]),
  ];
}

const billedSearches = (row: any, charged: number, searches: number) =>
  expect({ searches: Number(row.web_search_calls), charged }).toEqual({
    searches,
    charged: expectedCharge({ input: row.input_tokens, output: row.output_tokens }) + searches * perSearch,
  });

describe('Responses web searches seen finished, then the stream is cut (pass-through)', () => {
  it('upstream resets after two web_search_call items finished: both searches are billed', async () => {
    fixture.primary['openai-responses'].enqueue({ sse: searchedThenText(), ending: 'reset', endDelayMs: 50 });
    const { row, charged } = await booked(fixture, async () => {
      const stream = fixture.sdk.openai.responses.stream({ model, input: 'Weather in Paris?', tools: [{ type: 'web_search' }], max_output_tokens: 300 });
      await stream.finalResponse();
    });
    expect(row.usage_source).toBe('local');
    billedSearches(row, charged, 2);
  });

  it('the client leaves after the first text delta (searches done): both searches are billed', async () => {
    fixture.primary['openai-responses'].enqueue({ sse: searchedThenText(), delayMs: 30, ending: 'hang' });
    const { row, charged } = await booked(fixture, async () => {
      const runner = fixture.sdk.openai.responses.stream({ model, input: 'Weather in Paris?', tools: [{ type: 'web_search' }], max_output_tokens: 300 });
      runner.on('response.output_text.delta', () => runner.abort());
      await runner.done().catch(() => undefined);
    });
    expect(row.status).toBe(499);
    billedSearches(row, charged, 2);
  });

  it('a stream that completes bills response.completed\'s figure, once (the searches told on the way are not added)', async () => {
    const usage = { input_tokens: 900, input_tokens_details: { cached_tokens: 0 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 930 };
    fixture.primary['openai-responses'].enqueue({ sse: searchedThenText({ usage }) });
    const { row, charged } = await booked(fixture, async () => {
      const stream = fixture.sdk.openai.responses.stream({ model, input: 'Weather in Paris?', tools: [{ type: 'web_search' }], max_output_tokens: 300 });
      return (await stream.finalResponse()).output_text;
    });
    expect(row.usage_source).toBe('upstream');
    expect({ searches: Number(row.web_search_calls), charged }).toEqual({ searches: 2, charged: expectedCharge({ input: 900, output: 30 }) + 2 * perSearch });
  });
});

describe('the same Responses upstream behind a converted client, cut after its searches', () => {
  it('a Chat stream whose upstream resets: both searches are billed', async () => {
    fixture.primary['openai-responses'].enqueue({ sse: searchedThenText(), ending: 'reset', endDelayMs: 50 });
    const { row, charged, error } = await booked(fixture, async () => {
      for await (const _chunk of await fixture.sdk.openai.chat.completions.create({ model, stream: true, max_tokens: 300, messages: [{ role: 'user', content: 'Weather in Paris?' }] }));
    });
    expect(error?.message, 'the SDK raised the interruption').toMatch(/interrupted/);
    expect(row.usage_source).toBe('local');
    billedSearches(row, charged, 2);
  });

  it('an Anthropic stream whose upstream resets: both searches are billed', async () => {
    fixture.primary['openai-responses'].enqueue({ sse: searchedThenText(), ending: 'reset', endDelayMs: 50 });
    const { row, charged } = await booked(fixture, async () => {
      await fixture.sdk.anthropic.messages.stream({ model, max_tokens: 300, messages: [{ role: 'user', content: 'Weather in Paris?' }] }).finalMessage();
    });
    expect(row.usage_source).toBe('local');
    billedSearches(row, charged, 2);
  });

  it('a Gemini client that leaves after the first text: both searches are billed', async () => {
    fixture.primary['openai-responses'].enqueue({ sse: searchedThenText(), delayMs: 30, ending: 'hang' });
    const controller = new AbortController();
    const { row, charged } = await booked(fixture, async () => {
      const stream = await fixture.sdk.gemini.models.generateContentStream({ model, contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }], config: { maxOutputTokens: 300, abortSignal: controller.signal } });
      for await (const chunk of stream) {
        if ((chunk.text ?? '') !== '') controller.abort();
      }
    });
    expect(row.status).toBe(499);
    billedSearches(row, charged, 2);
  });
});

describe('searches that ran, then the request refused in-band as its own fault', () => {
  // The searches' results filled the context: a 400 for the client, but the upstream bills the searches.
  const searchedThenRefused = () => {
    let seq = 0;
    const e = (data: Record<string, unknown>) => ev({ ...data, sequence_number: seq++ });
    return [
      e({ type: 'response.created', response: response('in_progress') }),
      e({ type: 'response.output_item.added', output_index: 0, item: { id: 'ws_1', type: 'web_search_call', status: 'in_progress' } }),
      e({ type: 'response.output_item.done', output_index: 0, item: searchCall('ws_1') }),
      e({ type: 'response.failed', response: { ...response('failed', [searchCall('ws_1')]), error: { code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' } } }),
    ];
  };

  it('pass-through: the client gets the 400, and the search that ran is billed', async () => {
    fixture.primary['openai-responses'].enqueue({ sse: searchedThenRefused() });
    const { row, charged, error } = await booked(fixture, async () => {
      await fixture.sdk.openai.responses.stream({ model, input: 'Weather in Paris?', tools: [{ type: 'web_search' }], max_output_tokens: 300 }).finalResponse();
    });
    expect(error?.status).toBe(400);
    billedSearches(row, charged, 1);
  });

  it('behind a Chat client: the 400, and the search billed', async () => {
    fixture.primary['openai-responses'].enqueue({ sse: searchedThenRefused() });
    const { row, charged, error } = await booked(fixture, async () => {
      for await (const _chunk of await fixture.sdk.openai.chat.completions.create({ model, stream: true, max_tokens: 300, messages: [{ role: 'user', content: 'Weather in Paris?' }] }));
    });
    expect(error?.status).toBe(400);
    billedSearches(row, charged, 1);
  });
});
