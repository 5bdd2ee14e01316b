/**
 * Web searches run by the upstream's server-side search tool are billed each at the model's `web_search`
 * price, on top of the tokens (docs/behaviour.md "Billing"): Anthropic's `server_tool_use.web_search_requests`
 * (cumulative in `message_delta`, or on a whole message) and OpenAI Responses' `web_search_call` output
 * items (in `response.completed`, or a whole response), and Gemini grounding's `groundingMetadata.webSearchQueries`
 * (per unique query on Gemini 3, once per grounded prompt before). Through the official SDKs on pass-through channels,
 * where the search tools go (a converted request does not carry them); the log row counts the searches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { booked } from '../gemini-native/gemini-support.js';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from './billing-fixture.js';

/** $0.01 a search at 500,000 quota per unit: 5,000 each. */
const perSearch = 5_000;
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, extraPrice: { web_search: 0.01 } });
});
afterAll(async () => fixture?.close());

const ev = (data: Record<string, unknown>) => ({ event: String(data.type), data });
const searchTool = { type: 'web_search_20250305', name: 'web_search', max_uses: 5 } as const;

describe('Anthropic web searches', () => {
  it('a stream: message_delta reports two searches, each billed', async () => {
    fixture.primary.anthropic.enqueue({
      sse: [
        ev({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude', stop_reason: null, stop_sequence: null, usage: { input_tokens: 40, output_tokens: 1 } } }),
        ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
        ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'It is sunny.' } }),
        ev({ type: 'content_block_stop', index: 0 }),
        ev({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 900, output_tokens: 30, server_tool_use: { web_search_requests: 2 } } }),
        ev({ type: 'message_stop' }),
      ],
    });
    const { row, charged } = await booked(fixture, async () => {
      const stream = fixture.sdk.anthropic.messages.stream({ model: modelOf.anthropic, max_tokens: 200, tools: [searchTool], messages: [{ role: 'user', content: 'Weather in Paris?' }] });
      return (await stream.finalMessage()).content;
    });
    expect({ searches: Number(row.web_search_calls), charged }).toEqual({ searches: 2, charged: expectedCharge({ input: 900, output: 30 }) + 2 * perSearch });
  });

  it('a whole message: usage.server_tool_use reports one search, billed', async () => {
    fixture.primary.anthropic.enqueue({
      json: {
        id: 'msg_2', type: 'message', role: 'assistant', model: 'claude', stop_reason: 'end_turn', stop_sequence: null,
        content: [{ type: 'text', text: 'It is sunny.' }],
        usage: { input_tokens: 500, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: { web_search_requests: 1 } },
      },
    });
    const { row, charged } = await booked(fixture, () => fixture.sdk.anthropic.messages.create({ model: modelOf.anthropic, max_tokens: 200, tools: [searchTool], messages: [{ role: 'user', content: 'Weather?' }] }));
    expect({ searches: Number(row.web_search_calls), charged }).toEqual({ searches: 1, charged: expectedCharge({ input: 500, output: 20 }) + perSearch });
  });
});

describe('OpenAI Responses web searches', () => {
  const searchCall = (id: string) => ({ id, type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'weather paris' } });
  const message = { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'It is sunny.', annotations: [] }] };
  const response = (status: string, output: unknown[], usage: unknown) => ({ id: 'resp_1', object: 'response', created_at: 1_760_000_000, status, model: 'gpt-5', output, usage, error: null, incomplete_details: null });
  const usage = { input_tokens: 1200, input_tokens_details: { cached_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1240 };

  it('a stream: three web_search_call items in response.completed, each billed', async () => {
    const output = [searchCall('ws_1'), searchCall('ws_2'), searchCall('ws_3'), message];
    fixture.primary['openai-responses'].enqueue({
      sse: [
        ev({ type: 'response.created', sequence_number: 0, response: response('in_progress', [], null) }),
        ...output.map((item, index) => ev({ type: 'response.output_item.done', sequence_number: index + 1, output_index: index, item })),
        ev({ type: 'response.completed', sequence_number: 5, response: response('completed', output, usage) }),
      ],
    });
    const { row, charged } = await booked(fixture, async () => {
      const stream = fixture.sdk.openai.responses.stream({ model: modelOf['openai-responses'], input: 'Weather in Paris?', tools: [{ type: 'web_search' }], max_output_tokens: 300 });
      return (await stream.finalResponse()).output_text;
    });
    expect({ searches: Number(row.web_search_calls), charged }).toEqual({ searches: 3, charged: expectedCharge({ input: 1200, output: 40 }) + 3 * perSearch });
  });

  it('a whole response: one web_search_call item, billed', async () => {
    fixture.primary['openai-responses'].enqueue({ json: response('completed', [searchCall('ws_9'), message], usage) });
    const { row, charged } = await booked(fixture, () => fixture.sdk.openai.responses.create({ model: modelOf['openai-responses'], input: 'Weather?', tools: [{ type: 'web_search' }], max_output_tokens: 300 }));
    expect({ searches: Number(row.web_search_calls), charged }).toEqual({ searches: 1, charged: expectedCharge({ input: 1200, output: 40 }) + perSearch });
  });
});

describe('Gemini Google Search grounding', () => {
  const chunk = (modelVersion: string, parts: unknown[], extra: Record<string, unknown> = {}, usageMetadata?: unknown) => ({
    data: { candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], modelVersion, responseId: 'gr_1', ...(usageMetadata === undefined ? {} : { usageMetadata }) },
  });
  const usageMetadata = { promptTokenCount: 300, candidatesTokenCount: 25, totalTokenCount: 325 };
  const grounded = (modelVersion: string, queries: string[]) => ({
    crlf: true,
    sse: [
      chunk(modelVersion, [{ text: 'It is ' }]),
      chunk(modelVersion, [{ text: 'sunny.' }], { finishReason: 'STOP', groundingMetadata: { webSearchQueries: queries, groundingChunks: [{ web: { uri: 'https://example.com', title: 'example' } }] } }, usageMetadata),
    ],
  });
  const config = { tools: [{ googleSearch: {} }] };

  it('Gemini 3, streamed: each unique non-empty query is billed (Google ignores empty ones)', async () => {
    fixture.primary.gemini.enqueue(grounded('gemini-3-flash-preview', ['', 'weather paris', 'paris forecast', 'weather paris']));
    const { row, charged } = await booked(fixture, async () => {
      let text = '';
      for await (const part of await fixture.sdk.gemini.models.generateContentStream({ model: modelOf.gemini, contents: 'Weather in Paris?', config })) text += part.text ?? '';
      return text;
    });
    expect({ searches: Number(row.web_search_calls), charged }).toEqual({ searches: 2, charged: expectedCharge({ input: 300, output: 25 }) + 2 * perSearch });
  });

  it('Gemini 2.5, whole: a grounded prompt is billed once, however many queries it ran', async () => {
    fixture.primary.gemini.enqueue(grounded('gemini-2.5-flash', ['weather paris', 'paris forecast', 'paris tomorrow']));
    const { row, charged } = await booked(fixture, () => fixture.sdk.gemini.models.generateContent({ model: modelOf.gemini, contents: 'Weather?', config }));
    expect({ searches: Number(row.web_search_calls), charged }).toEqual({ searches: 1, charged: expectedCharge({ input: 300, output: 25 }) + perSearch });
  });

  it('an answer that ran no search costs no search', async () => {
    fixture.primary.gemini.enqueue(grounded('gemini-3-flash-preview', []));
    const { row, charged } = await booked(fixture, () => fixture.sdk.gemini.models.generateContent({ model: modelOf.gemini, contents: 'Hi', config }));
    expect({ searches: Number(row.web_search_calls), charged }).toEqual({ searches: 0, charged: expectedCharge({ input: 300, output: 25 }) });
  });
});
