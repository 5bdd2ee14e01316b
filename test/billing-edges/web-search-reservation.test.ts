/**
 * From the review of this session's changes: web searches are billed per search, so the reservation holds
 * the searches a declared search tool allows (Anthropic's `max_uses`) — a key that covers the tokens but not
 * the searches is refused rather than admitted and charged only what its balance holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { J } from '../responses-api/responses-support.js';

const perSearch = 5_000;
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 3_000, userQuota: 100_000_000, extraPrice: { web_search: 0.01 } });
});
afterAll(async () => fixture?.close());

describe('web searches and the balance', () => {
  it('a request whose search tool may run 5 searches is refused, or billed every search it ran', async () => {
    fixture.primary.anthropic.enqueue({
      json: {
        id: 'msg_2', type: 'message', role: 'assistant', model: 'claude', stop_reason: 'end_turn', stop_sequence: null,
        content: [{ type: 'text', text: 'It is sunny.' }],
        usage: { input_tokens: 50, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: { web_search_requests: 5 } },
      },
    });
    await fixture.settled();
    const before = await fixture.balances();
    const response = await fetch(`${fixture.gateway.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': callerKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: J({ model: modelOf.anthropic, max_tokens: 100, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }], messages: [{ role: 'user', content: 'Weather?' }] }) });
    await response.text();
    await fixture.settled();
    const after = await fixture.balances();
    const charged = after.tokenUsed - before.tokenUsed;
    const cost = expectedCharge({ input: 50, output: 20 }) + 5 * perSearch;
    expect({ status: response.status, charged }).toEqual(response.status === 402 ? { status: 402, charged: 0 } : { status: 200, charged: cost });
  });
});
