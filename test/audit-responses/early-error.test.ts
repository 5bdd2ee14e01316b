import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, streamErrorEvent, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { callerKey, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, J, parseSse } from '../responses-api/responses-support.js';

/** An in-band error before any content, streamed: nothing was delivered, so another channel may still answer. */
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
