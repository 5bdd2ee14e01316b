/**
 * Anthropic pass-through usage read from message_delta (from the native-routes audit): cumulative counters
 * replace message_start's, and 1-hour cache writes reported only there are priced as such. From the
 * Anthropic audit: a message_delta that writes 0 for the input message_start reported (some relays do)
 * does not wipe it — passthrough and converted alike (one decoder) — and a client that leaves mid-thinking
 * is billed message_start's input with its 1-hour writes at the 1-hour price.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked } from '../gemini-native/gemini-support.js';
import { booked as bookedWithSdk } from '../support/booked-request.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, extraPrice: { cache_write_1h: 6 } });
});
afterAll(async () => fixture?.close());

const ev = (data: Record<string, unknown>) => ({ event: String(data.type), data });

describe('anthropic passthrough stream usage read from message_delta', () => {
  it('1h cache writes reported in message_delta only; thinking; cumulative counters replace message_start', async () => {
    fixture.primary.anthropic.enqueue({ sse: [
      ev({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [], model: 'c', stop_reason: null, stop_sequence: null, usage: { input_tokens: 43, output_tokens: 1 } } }),
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      ev({ type: 'content_block_stop', index: 0 }),
      ev({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 61, cache_creation_input_tokens: 1000, cache_read_input_tokens: 2000, cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 600 }, output_tokens: 20, server_tool_use: { web_search_requests: 2 } } }),
      ev({ type: 'message_stop' }),
    ] });
    const { row, charged } = await booked(fixture, () => fetch(`${fixture.gateway.url}/v1/messages`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': callerKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: modelOf.anthropic, stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }),
    }).then((r) => r.text()));
    // $/M: 61×3 + 2000×0.3 + 400×3.75 + 600×6 + 20×15 = 183 + 600 + 1500 + 3600 + 300 = 6183 → ×0.5 = 3091.5 → 3092
    expect({ input: row.input_tokens, output: row.output_tokens, charged }).toEqual({ input: 3061, output: 20, charged: 3092 });
  });
});

const start = (usage: Record<string, unknown>) =>
  ev({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-sonnet-4-5', stop_reason: null, stop_sequence: null, usage } });
const textBlock = (text: string, index = 0) => [
  ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
  ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
  ev({ type: 'content_block_stop', index }),
];
/** message_start reports 5,000 uncached input, 2,000 cache reads, 1,000 writes; message_delta writes zeros for them. */
const zeroingDelta = () => [
  start({ input_tokens: 5000, cache_read_input_tokens: 2000, cache_creation_input_tokens: 1000, output_tokens: 1 }),
  ...textBlock('Hi'),
  ev({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 20 } }),
  ev({ type: 'message_stop' }),
];

describe('a message_delta that writes 0 for the input message_start reported', () => {
  it('Anthropic client (passthrough): billed the 8,000 input tokens message_start reported (input counters never fall)', async () => {
    fixture.primary.anthropic.enqueue({ sse: zeroingDelta() });
    const { row } = await bookedWithSdk(fixture, () => fixture.sdk.anthropic.messages.stream({ model: modelOf.anthropic, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage());
    expect({ input: row.input_tokens, cacheRead: row.cache_read_tokens, cacheWrite: row.cache_write_tokens, output: row.output_tokens }).toEqual({ input: 8000, cacheRead: 2000, cacheWrite: 1000, output: 20 });
  });

  it('Chat client (converted from the Anthropic upstream): billed the same 8,000', async () => {
    fixture.primary.anthropic.enqueue({ sse: zeroingDelta() });
    const { row } = await bookedWithSdk(fixture, async () => {
      const stream = await fixture.sdk.openai.chat.completions.create({ model: modelOf.anthropic, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
      for await (const chunk of stream) void chunk;
    });
    expect({ input: row.input_tokens, output: row.output_tokens }).toEqual({ input: 8000, output: 20 });
  });
});

describe('a client that leaves mid-thinking', () => {
  it("is billed message_start's input with its 1-hour cache writes at the 1-hour price", async () => {
    const thinkingDeltas = Array.from({ length: 40 }, (_, i) => ev({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: `step ${i} ` } }));
    fixture.primary.anthropic.enqueue({ delayMs: 30, sse: [
      start({ input_tokens: 100, cache_read_input_tokens: 0, cache_creation_input_tokens: 10_000, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 10_000 }, output_tokens: 1 }),
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      ...thinkingDeltas,
      ev({ type: 'content_block_stop', index: 0 }),
      ...textBlock('Hi', 1),
      ev({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 500 } }),
      ev({ type: 'message_stop' }),
    ] });
    const { row } = await bookedWithSdk(fixture, async () => {
      const stream = fixture.sdk.anthropic.messages.stream({ model: modelOf.anthropic, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Hi' }] });
      let seen = 0;
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && ++seen === 3) break;
      }
    });
    // 100 × 3 + 10 000 × 6 = 60 300 $·tok/M for the input, + 15 per output token counted locally; × 0.5, half up.
    expect(row.input_tokens).toBe(10_100);
    expect(Number(row.output_tokens)).toBeGreaterThan(0);
    expect(Number(row.quota)).toBe(Math.floor((60_300 + 15 * Number(row.output_tokens) + 1) / 2));
  });
});
