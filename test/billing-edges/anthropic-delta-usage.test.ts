/**
 * Anthropic pass-through usage read from message_delta (from the native-routes audit): cumulative counters
 * replace message_start's, and 1-hour cache writes reported only there are priced as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked } from '../gemini-native/gemini-support.js';

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
