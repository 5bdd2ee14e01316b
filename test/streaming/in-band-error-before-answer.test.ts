import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, streamErrorEvent, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { callerKey, expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, J, parseSse } from '../responses-api/responses-support.js';

/**
 * From the Responses audit: an in-band error before any content, streamed — nothing was delivered (the
 * opening events are held until the first content: src/relay/stream-opening.ts), so another channel may
 * still answer, converted (a Responses client) and pass-through (Anthropic's overloaded error right after
 * its message_start), and only the answer that served is charged.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, fallbacks: true });
});
afterAll(async () => fixture?.close());

describe('an in-band error before any content', () => {
  it.each(['openai-chat', 'gemini'] as WireStyle[])('%s upstream (the error is its first event): the fallback channel answers the Responses stream', async (up) => {
    const whole = replyFor(up, { text: 'x', usage: { input: 10, output: 1 } }, true);
    fixture.primary[up].enqueue({ ...whole, sse: [streamErrorEvent(up, 'Upstream overloaded')] });
    fixture.fallback![up].enqueue(replyFor(up, { text: 'From fallback', usage: { input: 10, output: 3 } }, true));
    const { result } = await booked(fixture, async () => {
      const response = await fetch(`${fixture.gateway.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: J({ model: modelOf[up], input: 'Hi', stream: true }) });
      return parseSse(await response.text());
    });
    const types = result!.map((e) => e.data.type);
    expect(types.join(' ')).not.toContain('error');
    expect(result!.at(-1)!.data.response?.output?.[0]?.content?.[0]?.text).toBe('From fallback');
  });
});

describe('pass-through: Anthropic overloaded right after message_start', () => {
  it('the fallback channel answers the Anthropic client, charged once (its own usage)', async () => {
    const ev = (data: Record<string, unknown>) => ({ event: String(data.type), data });
    fixture.primary.anthropic.enqueue({
      sse: [
        ev({ type: 'message_start', message: { id: 'msg_p', type: 'message', role: 'assistant', content: [], model: 'claude', stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
        ev({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      ],
    });
    fixture.fallback!.anthropic.enqueue(replyFor('anthropic', { text: 'From fallback', usage: { input: 10, output: 3 } }, true));
    const { row, charged, result } = await booked(fixture, async () => {
      const stream = fixture.sdk.anthropic.messages.stream({ model: modelOf.anthropic, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
      return stream.finalText();
    });
    expect(result).toBe('From fallback');
    expect({ status: row.status, charged }).toEqual({ status: 200, charged: expectedCharge({ input: 10, output: 3 }) });
  });
});
