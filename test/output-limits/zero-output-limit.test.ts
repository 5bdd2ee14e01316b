import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import { callerKey, modelOf, promptText, startBillingFixture, styles, type BillingFixture } from '../billing-edges/billing-fixture.js';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';

/**
 * An output limit of 0 (docs/behaviour.md "Billing": "a limit of 0 is refused with a 400"), on every text
 * route, passthrough and converted, whole and streamed. The gateway reserves no output for a 0, and a
 * compatible server written in Go (new-api, one-api chained as a channel: `MaxTokens uint …omitempty`) drops
 * the 0 and applies no limit at all — output the reservation never covered, charged only as far as the
 * balance goes. From the audit probe test/audit-suspicions/completions-max-tokens-zero.test.ts: legacy
 * Completions accepted `max_tokens: 0`, reserved nothing for it, and sent it upstream.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const upstreamCalls = () => styles.reduce((sum, style) => sum + fixture.primary[style].requests.length, 0);

/** Runs `send`, and asserts it reached no upstream and left no reservation behind. */
async function refusedBeforeUpstream<T>(send: () => Promise<T>): Promise<T> {
  const calls = upstreamCalls();
  const reservations = (await fixture.reservations()).length;
  const outcome = await send();
  await fixture.settled();
  expect({ upstreamCalls: upstreamCalls() - calls, reservations: (await fixture.reservations()).length - reservations }).toEqual({ upstreamCalls: 0, reservations: 0 });
  return outcome;
}

async function post(path: string, body: Record<string, unknown>, headers: Record<string, string> = { authorization: `Bearer ${callerKey}` }): Promise<{ status: number; json: any }> {
  const response = await fetch(`${fixture.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text) };
}

describe('legacy Completions max_tokens: 0', () => {
  it.each([false, true])('stream %s: the openai SDK sees a BadRequestError naming max_tokens, nothing reaches the upstream', async (stream) => {
    const error = await refusedBeforeUpstream(() =>
      fixture.sdk.openai.completions.create({ model: modelOf['openai-chat'], prompt: promptText, max_tokens: 0, stream }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      ),
    );
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 400, param: 'max_tokens' });
  });

  it('a positive max_tokens is still served (control)', async () => {
    const answer = await fixture.sdk.openai.completions.create({ model: modelOf['openai-chat'], prompt: promptText, max_tokens: 5 });
    expect(answer.object === 'text_completion' || Array.isArray(answer.choices)).toBe(true);
    expect((fixture.primary['openai-chat'].requests.at(-1)?.body as { max_tokens?: number }).max_tokens).toBe(5);
  });
});

describe.each(styles)('an output limit of 0 sent to a %s channel', (channelStyle: WireStyle) => {
  const model = modelOf[channelStyle];

  it.each([false, true])('Responses max_output_tokens: 0 (stream %s) → 400 naming the field', async (stream) => {
    const error = await refusedBeforeUpstream(() => fixture.sdk.openai.responses.create({ model, input: promptText, max_output_tokens: 0, stream }).then(() => undefined, (thrown: unknown) => thrown));
    expect(error).toMatchObject({ status: 400, param: 'max_output_tokens' });
  });

  it.each([false, true])('Anthropic max_tokens: 0 (stream %s) → 400 invalid_request_error', async (stream) => {
    const error = await refusedBeforeUpstream(() => fixture.sdk.anthropic.messages.create({ model, max_tokens: 0, messages: [{ role: 'user', content: promptText }], stream }).then(() => undefined, (thrown: unknown) => thrown));
    expect(error).toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error' } } });
    expect(String((error as { message?: string }).message)).toMatch(/max_tokens/);
  });

  it.each(['generateContent', 'streamGenerateContent?alt=sse'])('Gemini :%s maxOutputTokens: 0 (and max_output_tokens) → 400 INVALID_ARGUMENT', async (action) => {
    for (const generationConfig of [{ maxOutputTokens: 0 }, { max_output_tokens: 0 }]) {
      const answer = await refusedBeforeUpstream(() => post(`/v1beta/models/${model}:${action}`, { contents: [{ role: 'user', parts: [{ text: promptText }] }], generationConfig }, { 'x-goog-api-key': callerKey }));
      expect({ status: answer.status, code: answer.json.error?.code, status_: answer.json.error?.status }).toEqual({ status: 400, code: 400, status_: 'INVALID_ARGUMENT' });
    }
  });

  it('the Gemini SDK sees the refusal as an ApiError of status 400', async () => {
    const error = await refusedBeforeUpstream(() => fixture.sdk.gemini.models.generateContent({ model, contents: [{ role: 'user', parts: [{ text: promptText }] }], config: { maxOutputTokens: 0 } }).then(() => undefined, (thrown: unknown) => thrown));
    expect(error).toMatchObject({ status: 400 });
  });
});
