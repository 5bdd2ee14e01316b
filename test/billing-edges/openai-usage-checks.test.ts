/**
 * OpenAI-route usage checks (from the OpenAI-routes audit): Responses passthrough streams ending
 * `response.incomplete` and whole answers bill cached and reasoning tokens; a Chat passthrough stream
 * without `include_usage` is asked for usage and billed from it; a converted Responses stream bills cached
 * and reasoning tokens; failover after a 200-then-reset or a 503 charges once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyAsAsked, replyFor } from '../fakes/scripted-vendor-wire.js';
import { callerKey, expectedCharge, modelOf, promptText, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked } from '../support/booked-request.js';

/** Things checked and found correct (these pass now). */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, fallbacks: true });
});
afterAll(async () => fixture?.close());

async function post(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${fixture.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${callerKey}` }, body: JSON.stringify(body) });
  return response.text();
}

const usage = { input: 1000, cacheRead: 600, output: 300, reasoning: 250 };

describe('usage read from the right place', () => {
  it('responses passthrough stream ending response.incomplete: cached + reasoning billed', async () => {
    fixture.primary['openai-responses'].enqueue(replyFor('openai-responses', { text: 'Hello there', stop: 'length', usage }, true));
    const { row } = await booked(fixture, () => post('/v1/responses', { model: modelOf['openai-responses'], stream: true, input: promptText, max_output_tokens: 400 }));
    expect(row.usage_source).toBe('upstream');
    expect(row.quota).toBe(expectedCharge(usage));
  });

  it('responses passthrough whole: cached + reasoning billed', async () => {
    fixture.primary['openai-responses'].enqueue(replyFor('openai-responses', { text: 'Hello there', usage }, false));
    const { row } = await booked(fixture, () => post('/v1/responses', { model: modelOf['openai-responses'], input: promptText, max_output_tokens: 400 }));
    expect(row.quota).toBe(expectedCharge(usage));
  });

  it('chat passthrough stream without include_usage: gateway asks, bills cached + reasoning, client gets no usage chunk', async () => {
    fixture.primary['openai-chat'].enqueue(replyAsAsked('openai-chat', { text: 'Hello there', usage }));
    let text = '';
    const { row } = await booked(fixture, async () => {
      text = await post('/v1/chat/completions', { model: modelOf['openai-chat'], stream: true, max_tokens: 400, messages: [{ role: 'user', content: promptText }] });
    });
    expect((fixture.primary['openai-chat'].requests.at(-1)!.body as any).stream_options).toEqual({ include_usage: true });
    expect(text).not.toContain('"prompt_tokens"');
    expect(row.quota).toBe(expectedCharge(usage));
  });

  it('responses client → chat channel (converted) stream: cached + reasoning billed', async () => {
    fixture.primary['openai-chat'].enqueue(replyAsAsked('openai-chat', { text: 'Hello there', usage }));
    const { row } = await booked(fixture, () => post('/v1/responses', { model: modelOf['openai-chat'], stream: true, input: promptText, max_output_tokens: 400 }));
    expect(row.quota).toBe(expectedCharge(usage));
  });
});

describe('failover', () => {
  it('chat passthrough stream: first channel 200 then reset before any event, fallback answers: charged once', async () => {
    fixture.primary['openai-chat'].enqueue({ headers: { 'content-type': 'text/event-stream' }, raw: [], ending: 'reset' });
    fixture.fallback!['openai-chat'].enqueue(replyAsAsked('openai-chat', { text: 'Hello', usage: { input: 10, output: 5 } }));
    const { row } = await booked(fixture, () => post('/v1/chat/completions', { model: modelOf['openai-chat'], stream: true, max_tokens: 50, messages: [{ role: 'user', content: promptText }] }));
    expect(row.quota).toBe(expectedCharge({ input: 10, output: 5 }));
  });

  it('responses passthrough: first channel 503, fallback answers: charged once', async () => {
    fixture.primary['openai-responses'].enqueue({ status: 503, json: { error: { message: 'busy', type: 'server_error' } } });
    fixture.fallback!['openai-responses'].enqueue(replyAsAsked('openai-responses', { text: 'Hello', usage: { input: 10, output: 5 } }));
    const { row } = await booked(fixture, () => post('/v1/responses', { model: modelOf['openai-responses'], stream: true, max_output_tokens: 50, input: promptText }));
    expect(row.quota).toBe(expectedCharge({ input: 10, output: 5 }));
  });
});
