/**
 * From the review of the message_delta merge rule: a relay that splits its input into cache reads only in
 * message_delta and finds the whole prompt cached writes `input_tokens: 0, cache_read_input_tokens: 1000`
 * there. That is a new split (not zeros over the input), billed as sent: 1,000 input, all cache reads —
 * never message_start's 1,000 uncached plus the 1,000 reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, expectedCharge, modelOf, startBillingFixture, type BillingFixture } from './billing-fixture.js';
import { booked } from '../support/booked-request.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const ev = (data: Record<string, unknown>) => ({ event: String(data.type), data });

describe('Anthropic passthrough: a message_delta that splits the whole input into cache reads', () => {
  it('is billed the split (1,000 input, all cache reads), not message_start\'s 1,000 plus the 1,000 reads', async () => {
    fixture.primary.anthropic.enqueue({ sse: [
      ev({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [], model: 'c', stop_reason: null, stop_sequence: null, usage: { input_tokens: 1000, output_tokens: 1 } } }),
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      ev({ type: 'content_block_stop', index: 0 }),
      ev({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 0, cache_read_input_tokens: 1000, output_tokens: 20 } }),
      ev({ type: 'message_stop' }),
    ] });
    const { row, charged } = await booked(fixture, () => fetch(`${fixture.gateway.url}/v1/messages`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': callerKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: modelOf.anthropic, stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }),
    }).then((r) => r.text()));
    expect({ input: Number(row.input_tokens), cacheRead: Number(row.cache_read_tokens), charged }).toEqual({ input: 1000, cacheRead: 1000, charged: expectedCharge({ input: 1000, cacheRead: 1000, output: 20 }) });
  });
});
