import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { buildClientRequest, expectedCharge, modelOf, promptText, promptTokensExact, startBillingFixture, styles, tokens, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked } from './responses-support.js';

/**
 * A Responses client that leaves mid-answer pays the prompt + what was produced (or the last reported
 * usage): never zero, never the whole answer (new-api #5235: Responses stream + disconnect refunded
 * everything; #7062: client_gone billed 0). Left through the SDK's own abort (`ResponseStream.abort()`).
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const words = ['Hello', ' there', ' my', ' friend', ' how', ' are', ' you'];

describe('SDK stream aborted after the first text delta', () => {
  it.each(styles)('%s upstream: 499, prompt (as the upstream reported it, where it did) + the produced text counted locally', async (up) => {
    fixture.primary[up].enqueue({ ...replyFor(up, { text: words, usage: { input: 40, output: 300 } }, true), delayMs: 150 });
    let seen = '';
    const { error, row } = await booked(fixture, async () => {
      const runner = fixture.sdk.openai.responses.stream({ model: modelOf[up], input: promptText, max_output_tokens: 500 });
      runner.on('response.output_text.delta', (event) => {
        seen += event.delta;
        runner.abort();
      });
      await runner.done();
    });
    expect(error?.constructor?.name).toBe('APIUserAbortError');
    expect(seen).toBe('Hello');
    // The upstream may have sent the next piece before it saw the abort: at least what the client saw, never all.
    expect(row.status).toBe(499);
    expect(row.usage_source).toBe('local');
    // Anthropic's message_start reported the input (40) before the answer: that is billed, not the local count.
    const input = up === 'anthropic' ? 40 : promptTokensExact();
    expect(row.input_tokens).toBe(input);
    expect(row.output_tokens).toBeGreaterThanOrEqual(tokens('Hello'));
    expect(row.output_tokens).toBeLessThan(tokens(words.join('')));
    expect(row.quota).toBe(expectedCharge({ input, output: row.output_tokens }));
    expect(row.quota).toBeGreaterThan(0);
  });

  it('openai-responses upstream streaming reasoning first: the reasoning produced before the abort is billed too', async () => {
    const thinking = 'Let me think about greeting the user properly and warmly';
    fixture.primary['openai-responses'].enqueue({ ...replyFor('openai-responses', { thinking: { text: thinking, signature: 'enc' }, text: words, usage: { input: 40, output: 300 } }, true), delayMs: 20 });
    const { row } = await booked(fixture, async () => {
      const runner = fixture.sdk.openai.responses.stream({ model: modelOf['openai-responses'], input: promptText, max_output_tokens: 500 });
      runner.on('response.output_text.delta', () => runner.abort());
      await runner.done().catch(() => undefined);
    });
    expect(row.usage_source).toBe('local');
    expect(row.output_tokens).toBeGreaterThanOrEqual(tokens(thinking) + tokens('Hello') - 2);
    expect(row.output_tokens).toBeLessThan(tokens(thinking) + tokens(words.join('')));
  });
});

describe('a client that leaves before the first event (upstream headers sent, then silence)', () => {
  it.each(styles)('%s upstream: 499, the prompt alone', async (up) => {
    // Headers go out with the first write: an SSE comment, then nothing until the client leaves.
    fixture.primary[up].enqueue({ raw: [': waiting\n\n'], ending: 'hang' });
    const { row } = await booked(fixture, async () => {
      const controller = new AbortController();
      const request = buildClientRequest(fixture.gateway.url, 'openai-responses', modelOf[up], true, 500, controller.signal);
      const response = fetch(request.url, request.init).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      controller.abort();
      await response;
    });
    expect({ status: row.status, source: row.usage_source, input: row.input_tokens, output: row.output_tokens, quota: row.quota }).toEqual({
      status: 499, source: 'local', input: promptTokensExact(), output: 0, quota: expectedCharge({ input: promptTokensExact(), output: 0 }),
    });
  });
});

describe('a NON-streaming Responses client that leaves while a gemini upstream (always streamed) is mid-answer', () => {
  it('pays the prompt + the text the upstream produced before the client left', async () => {
    const up: WireStyle = 'gemini';
    fixture.primary[up].enqueue({ ...replyFor(up, { text: words, usage: { input: 40, output: 300 } }, true), delayMs: 150, ending: 'hang' });
    const { row } = await booked(fixture, async () => {
      const controller = new AbortController();
      const request = buildClientRequest(fixture.gateway.url, 'openai-responses', modelOf[up], false, 500, controller.signal);
      const response = fetch(request.url, request.init).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 400)); // ~3 of the 7 pieces produced
      controller.abort();
      await response;
    });
    expect(row.status).toBe(499);
    expect(row.usage_source).toBe('local');
    expect(row.output_tokens).toBeGreaterThan(0);
    expect(row.output_tokens).toBeLessThan(tokens(words.join('')));
    expect(row.quota).toBe(expectedCharge({ input: promptTokensExact(), output: row.output_tokens }));
  });
});
