/**
 * Audit probe: a client that leaves an Anthropic stream after the text but before message_delta. The
 * upstream already reported the prompt's real size in message_start (`input_tokens`, cache reads/writes):
 * Anthropic bills that input whatever happens next, so the gateway must not bill less than it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, expectedCharge, modelOf, startBillingFixture, tokens, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { anthropicStream } from '../fakes/scripted-vendor-wire.js';
import { settledRow } from '../support/booked-request.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const pdf = 'JVBERi0xLjQK'.repeat(10);

describe('client leaves an Anthropic stream before message_delta', () => {
  it('anthropic client -> anthropic upstream, a PDF prompt the upstream counted as 30 000 tokens: billed at least that input', async () => {
    // message_start reports 30 000 input tokens (the PDF); the client leaves after the first text.
    fixture.primary.anthropic.enqueue({ ...anthropicStream({ text: ['Hello', ' there', ' friend'], usage: { input: 30_000, output: 20 } }), delayMs: 300 });
    const logsBefore = (await fixture.logs()).length;
    const controller = new AbortController();
    const response = await fetch(`${fixture.gateway.url}/v1/messages`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', 'x-api-key': callerKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: modelOf.anthropic, stream: true, max_tokens: 100,
        messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } }, { type: 'text', text: 'Summarize' }] }],
      }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('text_delta')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      seen += new TextDecoder().decode(chunk.value);
    }
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const row = await settledRow(fixture, logsBefore);
    expect(row.status).toBe(499);
    // At least the reported input (plus whatever output was delivered).
    expect(row.quota).toBeGreaterThanOrEqual(expectedCharge({ input: 30_000, output: tokens('Hello') }));
  });
});
