import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyAsAsked } from '../fakes/scripted-vendor-wire.js';
import { callerKey, expectedCharge, modelOf, promptText, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';

/**
 * Output limits (docs/behaviour.md "Billing", from the OpenAI-routes audit). A request that names no
 * output limit reserves the output budget (`default_max_output_tokens`, 4096 here) and is sent that budget
 * as its limit on every upstream style, passthrough and converted: an upstream left to its own maximum
 * (100k+ on reasoning models) could produce more than was reserved, and on a low balance the overage
 * would be served free. Both Chat limits given: the larger is reserved. A limit of 0 is refused.
 * `background: true` on Responses passthrough is answered in the foreground.
 */
const budget = 4096;
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

async function post(path: string, body: Record<string, unknown>): Promise<Response> {
  const response = await fetch(`${fixture.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${callerKey}` }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return response;
}

const chatLimit = (body: any): number | undefined => body.max_completion_tokens ?? body.max_tokens;

describe('no output limit named by the client: the upstream is asked for at most the reserved budget', () => {
  it('chat client → OpenAI Chat channel (passthrough, stream)', async () => {
    const response = await post('/v1/chat/completions', { model: modelOf['openai-chat'], stream: true, messages: [{ role: 'user', content: promptText }] });
    expect(response.status).toBe(200);
    const sent = fixture.primary['openai-chat'].requests.at(-1)!.body as any;
    expect(chatLimit(sent), 'no output limit sent upstream: the upstream may produce more than the reservation covers').toBeDefined();
    expect(chatLimit(sent)).toBe(budget);
  });

  it('responses client → OpenAI Responses channel (passthrough)', async () => {
    const response = await post('/v1/responses', { model: modelOf['openai-responses'], input: promptText });
    expect(response.status).toBe(200);
    const sent = fixture.primary['openai-responses'].requests.at(-1)!.body as any;
    expect(sent.max_output_tokens, 'no max_output_tokens sent upstream').toBeDefined();
    expect(sent.max_output_tokens).toBe(budget);
  });

  it('responses client → OpenAI Chat channel (converted)', async () => {
    const response = await post('/v1/responses', { model: modelOf['openai-chat'], input: promptText });
    expect(response.status).toBe(200);
    const sent = fixture.primary['openai-chat'].requests.at(-1)!.body as any;
    expect(chatLimit(sent), 'no output limit sent upstream').toBe(budget);
  });

  it('chat client → Gemini channel (converted)', async () => {
    const response = await post('/v1/chat/completions', { model: modelOf.gemini, messages: [{ role: 'user', content: promptText }] });
    expect(response.status).toBe(200);
    const sent = fixture.primary.gemini.requests.at(-1)!.body as any;
    expect(sent.generationConfig?.maxOutputTokens, 'no maxOutputTokens sent upstream').toBe(budget);
  });

  it('gemini client → Gemini channel (passthrough): the limit joins the generation config the client sent', async () => {
    const response = await post(`/v1beta/models/${modelOf.gemini}:generateContent`, { contents: [{ role: 'user', parts: [{ text: promptText }] }], generationConfig: { temperature: 0.5 } });
    expect(response.status).toBe(200);
    const sent = fixture.primary.gemini.requests.at(-1)!.body as any;
    expect(sent.generationConfig).toEqual({ temperature: 0.5, maxOutputTokens: budget });
  });

  it('a client that names its limit: the bytes go upstream as sent', async () => {
    const body = { model: modelOf['openai-chat'], max_tokens: 300, messages: [{ role: 'user', content: promptText }] };
    const response = await post('/v1/chat/completions', body);
    expect(response.status).toBe(200);
    expect(fixture.primary['openai-chat'].requests.at(-1)!.body).toEqual(body);
  });
});

describe('background: true on Responses passthrough', () => {
  it('is dropped: the answer is produced in the foreground, where its usage is billed', async () => {
    const response = await post('/v1/responses', { model: modelOf['openai-responses'], input: promptText, background: true, max_output_tokens: 100 });
    expect(response.status).toBe(200);
    const sent = fixture.primary['openai-responses'].requests.at(-1)!.body as any;
    expect(sent).toEqual({ model: modelOf['openai-responses'], input: promptText, max_output_tokens: 100 });
  });
});

describe('max_tokens and max_completion_tokens both given (chat passthrough)', () => {
  it('the reservation covers the larger one (DeepSeek and most compatibles read only max_tokens)', async () => {
    fixture.primary['openai-chat'].enqueue(replyAsAsked('openai-chat', { text: ['Hi'], usage: { input: 7, output: 1 } }));
    const before = (await fixture.reservations()).length;
    const response = await post('/v1/chat/completions', { model: modelOf['openai-chat'], max_completion_tokens: 16, max_tokens: 8000, messages: [{ role: 'user', content: promptText }] });
    expect(response.status).toBe(200);
    await fixture.settled();
    const sent = fixture.primary['openai-chat'].requests.at(-1)!.body as any;
    const reservation = (await fixture.reservations()).slice(before)[0]!;
    // Either the reservation covers max_tokens 8000, or the gateway did not send max_tokens 8000 on.
    const covered = reservation.amount >= expectedCharge({ input: 0, output: 8000 }) || !(sent.max_tokens > 16);
    expect(covered, `reserved ${reservation.amount} (16 output tokens) but max_tokens ${sent.max_tokens} was sent upstream`).toBe(true);
  });
});

/**
 * `max_tokens: 0` / `max_output_tokens: 0`: OpenAI refuses them (minimum 1 / 16), but the many compatible
 * servers written in Go with `omitempty` (new-api, one-api chained as channels) drop a 0 and then apply no
 * limit at all. The gateway reserves 0 output for them and sends the 0 on: either refuse it (as OpenAI
 * does) or reserve the budget.
 */
describe('an output limit of 0 on passthrough', () => {
  it.each([
    ['chat', '/v1/chat/completions', 'openai-chat', { max_tokens: 0, messages: [{ role: 'user', content: promptText }] }],
    ['responses', '/v1/responses', 'openai-responses', { max_output_tokens: 0, input: promptText }],
  ] as const)('%s: refused, or the reservation covers the output budget', async (_name, path, style, body) => {
    const before = (await fixture.reservations()).length;
    const response = await post(path, { model: modelOf[style], ...body });
    await fixture.settled();
    const reservation = (await fixture.reservations()).slice(before)[0];
    const ok = response.status === 400 || (reservation !== undefined && reservation.amount >= expectedCharge({ input: 0, output: budget }));
    expect(ok, `status ${response.status}, reserved ${reservation?.amount} (0 output tokens) and the 0 was sent upstream`).toBe(true);
  });

  it('chat max_completion_tokens 0 and gemini maxOutputTokens 0 (proto3 "unset") are refused with 400 naming the field', async () => {
    const chat = await fetch(`${fixture.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${callerKey}` }, body: JSON.stringify({ model: modelOf['openai-chat'], max_completion_tokens: 0, messages: [{ role: 'user', content: promptText }] }) });
    expect({ status: chat.status, param: ((await chat.json()) as any).error.param }).toEqual({ status: 400, param: 'max_completion_tokens' });
    const gemini = await post(`/v1beta/models/${modelOf.gemini}:generateContent`, { contents: [{ role: 'user', parts: [{ text: promptText }] }], generationConfig: { maxOutputTokens: 0 } });
    expect(gemini.status).toBe(400);
  });
});

describe("a Chat channel's settings.max_tokens_field", () => {
  let named: BillingFixture;
  beforeAll(async () => {
    named = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, channelSettings: { 'openai-chat': { max_tokens_field: 'max_completion_tokens' } } });
  });
  afterAll(async () => named?.close());

  it('names the field the output limit goes in, pass-through and converted', async () => {
    const send = (path: string, body: Record<string, unknown>) =>
      fetch(`${named.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${callerKey}` }, body: JSON.stringify(body) }).then((response) => response.arrayBuffer());
    await send('/v1/chat/completions', { model: modelOf['openai-chat'], messages: [{ role: 'user', content: promptText }] });
    const passthrough = named.primary['openai-chat'].requests.at(-1)!.body as Record<string, unknown>;
    expect({ max_completion_tokens: passthrough.max_completion_tokens, max_tokens: passthrough.max_tokens }).toEqual({ max_completion_tokens: budget, max_tokens: undefined });
    await send('/v1/responses', { model: modelOf['openai-chat'], input: promptText, max_output_tokens: 300 });
    const converted = named.primary['openai-chat'].requests.at(-1)!.body as Record<string, unknown>;
    expect({ max_completion_tokens: converted.max_completion_tokens, max_tokens: converted.max_tokens }).toEqual({ max_completion_tokens: 300, max_tokens: undefined });
  });
});
