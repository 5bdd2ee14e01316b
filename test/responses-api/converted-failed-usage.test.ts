import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, streamErrorEvent, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { callerKey, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, J, parseSse } from '../responses-api/responses-support.js';

/** From the Responses audit: the usage a Responses client reads on response.failed (an in-band error, or a body that ends mid-answer) is the usage it is billed. */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

async function raw(body: unknown) {
  const response = await fetch(`${fixture.gateway.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: J(body) });
  return parseSse(await response.text());
}

describe('response.failed usage equals the billed usage', () => {
  it.each(['openai-chat', 'anthropic', 'gemini'] as WireStyle[])('%s upstream: in-band error after some text', async (up) => {
    const texts = Array.from({ length: 40 }, (_, i) => ` word${i % 10}`);
    const whole = replyFor(up, { text: texts, usage: { input: 40, output: 300 } }, true, { startUsage: { input: 40, output: 1 } });
    const sse = whole.sse!;
    const cut = up === 'anthropic' ? sse.findIndex((e) => e.event === 'content_block_stop') : up === 'openai-chat' ? sse.length - 3 : sse.length - 1;
    fixture.primary[up].enqueue({ ...whole, sse: [...sse.slice(0, cut), streamErrorEvent(up, 'Upstream overloaded')] });
    const { result, row } = await booked(fixture, () => raw({ model: modelOf[up], input: 'Say words', stream: true }));
    const last = result!.at(-1)!.data;
    expect(last.type).toBe('response.failed');
    expect({ input: last.response.usage?.input_tokens, output: last.response.usage?.output_tokens }).toEqual({ input: row.input_tokens, output: row.output_tokens });
  });

  it.each(['openai-chat', 'anthropic', 'gemini'] as WireStyle[])('%s upstream: the body ends mid-answer (interruption)', async (up) => {
    const texts = Array.from({ length: 40 }, (_, i) => ` word${i % 10}`);
    fixture.primary[up].enqueue({ ...replyFor(up, { text: texts, usage: { input: 40, output: 300 } }, true, { terminal: false, startUsage: { input: 40, output: 1 } }), ending: 'reset' });
    const { result, row } = await booked(fixture, () => raw({ model: modelOf[up], input: 'Say words', stream: true }));
    const last = result!.at(-1)!.data;
    expect(last.type).toBe('response.failed');
    expect({ input: last.response.usage?.input_tokens, output: last.response.usage?.output_tokens }).toEqual({ input: row.input_tokens, output: row.output_tokens });
  });
});
