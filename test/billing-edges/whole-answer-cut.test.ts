/**
 * Audit probe: a non-streaming client whose answer the gateway collects from an always-streamed Gemini
 * upstream; the upstream answered 200, produced (and reported) tokens, then the connection was cut. The
 * client gets an error, but the upstream's work is billed as an in-band failure's is
 * (test/billing-edges/failover.test.ts: "billed what it produced"), not given away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { geminiStream, streamErrorEvent } from '../fakes/scripted-vendor-wire.js';
import { booked, geminiRaw } from '../gemini-native/gemini-support.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { RETRY_TIMES: '0' } });
});
afterAll(async () => fixture?.close());

const words = ['Hello', ' there', ' my', ' friend'];
const cumulative = (index: number) => ({ input: 40, output: 100 * (index + 1) });

describe('gemini generateContent (whole) from a Gemini upstream cut after 200 and reported usage', () => {
  it('reset mid-answer: billed what the upstream reported (as an in-band error is)', async () => {
    fixture.primary.gemini.enqueue({ ...geminiStream({ text: words }, { terminal: false, usageAt: cumulative }), ending: 'reset' });
    const { result, row, charged } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:generateContent`, { contents: [{ parts: [{ text: 'Say hello' }] }] }));
    console.log('reset', result?.status, row.usage_source, charged);
    expect(charged).toBe(expectedCharge({ input: 40, output: 400 }));
  });

  it('control: in-band error mid-answer is billed what the upstream reported', async () => {
    const reply = geminiStream({ text: words }, { terminal: false, usageAt: cumulative });
    fixture.primary.gemini.enqueue({ ...reply, sse: [...reply.sse!, streamErrorEvent('gemini', 'Overloaded')] });
    const { result, row, charged } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:generateContent`, { contents: [{ parts: [{ text: 'Say hello' }] }] }));
    console.log('inband', result?.status, row.usage_source, charged);
    expect(charged).toBe(expectedCharge({ input: 40, output: 400 }));
  });

  it('openai-chat client (whole) -> gemini upstream reset mid-answer: billed what the upstream reported', async () => {
    fixture.primary.gemini.enqueue({ ...geminiStream({ text: words }, { terminal: false, usageAt: cumulative }), ending: 'reset' });
    const { result, row, charged } = await booked(fixture, () => fetch(`${fixture.gateway.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer sk-${'q'.repeat(48)}` },
      body: JSON.stringify({ model: modelOf.gemini, messages: [{ role: 'user', content: 'Say hello' }] }),
    }).then((r) => r.status));
    console.log('chat-reset', result, row.usage_source, charged);
    expect(charged).toBe(expectedCharge({ input: 40, output: 400 }));
  });
});
