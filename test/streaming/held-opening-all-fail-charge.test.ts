import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, J } from '../responses-api/responses-support.js';

/**
 * From the review of this session's changes. Anthropic overloaded right after message_start on every channel: the opening is held, nothing reaches the
 * client, and the client is answered an error status. An error answer delivered nothing: it must cost nothing
 * (as a 2xx error document costs nothing, src/relay/is-error-document.ts), not the message_start input.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, fallbacks: true });
});
afterAll(async () => fixture?.close());

const ev = (data: Record<string, unknown>) => ({ event: String(data.type), data });
const overloaded = () => ({
  sse: [
    ev({ type: 'message_start', message: { id: 'msg_p', type: 'message', role: 'assistant', content: [], model: 'claude', stop_reason: null, stop_sequence: null, usage: { input_tokens: 1000, output_tokens: 1 } } }),
    ev({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
  ],
});

describe('held opening, every channel overloaded', () => {
  it('the client answered an error status is charged nothing', async () => {
    fixture.primary.anthropic.enqueue(overloaded() as any);
    fixture.fallback!.anthropic.enqueue(overloaded() as any);
    const { result, charged, row } = await booked(fixture, async () => {
      const response = await fetch(`${fixture.gateway.url}/v1/messages`, { method: 'POST', signal: AbortSignal.timeout(4000), headers: { 'x-api-key': callerKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: J({ model: modelOf.anthropic, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi' }] }) });
      return { status: response.status, text: (await response.text()).slice(0, 300) };
    });
    console.log(result, row?.status, charged);
    expect(result!.status).toBeGreaterThanOrEqual(400);
    expect(charged).toBe(0);
  });
});
