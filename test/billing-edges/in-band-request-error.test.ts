import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply, SseEvent } from '../fakes/scripted-upstream.js';
import { replyAsAsked, streamErrorEvent, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { modelOf, sendWithSdk, startBillingFixture, styles, type BillingFixture } from './billing-fixture.js';

/**
 * An upstream that answers 200 and then refuses the request in-band, before any content — Anthropic's
 * `invalid_request_error` event right after `message_start`, a Responses `response.failed` whose code is
 * `invalid_prompt`, a Gemini error chunk `INVALID_ARGUMENT`, a Chat error chunk `invalid_request_error` —
 * says what its 400 would have said: the client gets a 400 in its own style (its SDK's error class), no
 * other channel is tried, nothing is charged (nothing was delivered), and the channel is not cooled.
 * Overloaded and server errors in-band still fail over (test/streaming/in-band-error-before-answer.test.ts).
 */
const refusal = 'prompt is too long: 250000 tokens > 200000 maximum';

const ev = (data: Record<string, unknown>): SseEvent => ({ event: String(data.type), data });
const responsesObject = (status: string, error: unknown) => ({ id: 'resp_up1', object: 'response', created_at: 1, status, error, incomplete_details: null, model: 'gpt-5', output: [], usage: null });

/** The upstream's 200 stream that refuses the request before its first content, as each vendor sends it. */
function refusedInBand(style: WireStyle): ScriptedReply {
  switch (style) {
    case 'anthropic':
      return {
        sse: [
          ev({ type: 'message_start', message: { id: 'msg_up1', type: 'message', role: 'assistant', content: [], model: 'claude', stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } }),
          ev({ type: 'error', error: { type: 'invalid_request_error', message: refusal } }),
        ],
      };
    case 'openai-responses':
      return {
        sse: [
          ev({ type: 'response.created', sequence_number: 0, response: responsesObject('in_progress', null) }),
          ev({ type: 'response.in_progress', sequence_number: 1, response: responsesObject('in_progress', null) }),
          ev({ type: 'response.failed', sequence_number: 2, response: responsesObject('failed', { code: 'invalid_prompt', message: refusal }) }),
        ],
      };
    case 'gemini':
      return { sse: [{ data: { error: { code: 400, message: refusal, status: 'INVALID_ARGUMENT' } } }], crlf: true };
    case 'openai-chat':
      return { sse: [{ data: { error: { message: refusal, type: 'invalid_request_error', param: null, code: null } } }] };
  }
}

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ fallbacks: true, tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

/** Sends through the client's SDK; the SDK's error, which must be its 400. */
async function refusedWith(client: WireStyle, upstream: WireStyle, stream: boolean, reply: ScriptedReply) {
  const primary = fixture.primary[upstream];
  const fallback = fixture.fallback![upstream];
  const seen = { primary: primary.requests.length, fallback: fallback.requests.length };
  primary.enqueue(reply);
  let error: any;
  const charged = await fixture.spent(async () => {
    error = await sendWithSdk(fixture.sdk, client, modelOf[upstream], stream, 200).then(
      (text) => new Error(`served: ${text}`),
      (raised: unknown) => raised,
    );
  });
  const row = (await fixture.logs()).at(-1);
  const reservation = (await fixture.reservations()).find((r) => r.id === row.request_id);
  return { error, charged, row, reservation, primaryCalls: primary.requests.length - seen.primary, fallbackCalls: fallback.requests.length - seen.fallback };
}

function expectClientsOwn400(client: WireStyle, error: any): void {
  expect(error?.status).toBe(400);
  expect(String(error.message)).toContain(refusal);
  if (client === 'anthropic') expect(error.error?.error?.type).toBe('invalid_request_error');
  if (client === 'gemini') expect(JSON.parse(String(error.message).slice(String(error.message).indexOf('{'))).error.status).toBe('INVALID_ARGUMENT');
}

describe('an in-band refusal of the request before any content goes back to the client as its 400', () => {
  for (const client of styles) {
    // Chat to Chat is relayed event by event, nothing held: the error chunk reaches the client as the upstream sent it.
    for (const upstream of styles.filter((style) => client !== 'openai-chat' || style !== 'openai-chat')) {
      it(`${client} client → ${upstream} upstream, streamed: the client's 400, no other channel, charged 0`, async () => {
        const got = await refusedWith(client, upstream, true, refusedInBand(upstream));
        expectClientsOwn400(client, got.error);
        expect({ primary: got.primaryCalls, fallback: got.fallbackCalls, charged: got.charged, status: got.row.status }).toEqual({ primary: 1, fallback: 0, charged: 0, status: 400 });
        expect(got.reservation).toMatchObject({ state: 'settled', settled_amount: 0 });
      });
    }
    // A non-streaming client's answer is collected from Gemini's stream, always.
    it(`${client} client → gemini upstream, not streamed: the client's 400, no other channel, charged 0`, async () => {
      const got = await refusedWith(client, 'gemini', false, refusedInBand('gemini'));
      expectClientsOwn400(client, got.error);
      expect({ primary: got.primaryCalls, fallback: got.fallbackCalls, charged: got.charged, status: got.row.status }).toEqual({ primary: 1, fallback: 0, charged: 0, status: 400 });
    });
  }

  for (const client of ['openai-chat', 'anthropic', 'gemini'] as const) {
    it(`${client} client → a whole Responses answer with status "failed", code invalid_prompt: the client's 400, charged 0`, async () => {
      const got = await refusedWith(client, 'openai-responses', false, { json: responsesObject('failed', { code: 'invalid_prompt', message: refusal }) });
      expectClientsOwn400(client, got.error);
      expect({ primary: got.primaryCalls, fallback: got.fallbackCalls, charged: got.charged, status: got.row.status }).toEqual({ primary: 1, fallback: 0, charged: 0, status: 400 });
    });
  }
});

describe('the refusal is the request’s fault, not the channel’s', () => {
  it('three in-band refusals in a row do not cool the channel: the next request is served by it', async () => {
    for (let i = 0; i < 3; i += 1) expect((await refusedWith('anthropic', 'anthropic', true, refusedInBand('anthropic'))).error?.status).toBe(400);
    const before = fixture.fallback!.anthropic.requests.length;
    fixture.primary.anthropic.enqueue(replyAsAsked('anthropic', { text: ['From primary'], usage: { input: 10, output: 2 } }));
    expect(await sendWithSdk(fixture.sdk, 'anthropic', modelOf.anthropic, true, 200)).toBe('From primary');
    expect(fixture.fallback!.anthropic.requests.length).toBe(before);
  });

  it('a Responses response.failed with server_error still fails over to the next channel', async () => {
    fixture.primary['openai-responses'].enqueue({
      sse: [
        ev({ type: 'response.created', sequence_number: 0, response: responsesObject('in_progress', null) }),
        ev({ type: 'response.failed', sequence_number: 1, response: responsesObject('failed', { code: 'server_error', message: 'The server had an error' }) }),
      ],
    });
    fixture.fallback!['openai-responses'].enqueue(replyAsAsked('openai-responses', { text: ['From fallback'], usage: { input: 10, output: 2 } }));
    expect(await sendWithSdk(fixture.sdk, 'openai-responses', modelOf['openai-responses'], true, 200)).toBe('From fallback');
  });

  it('an Anthropic overloaded_error right after message_start still fails over', async () => {
    fixture.primary.anthropic.enqueue({ sse: [refusedInBand('anthropic').sse![0]!, streamErrorEvent('anthropic', 'Overloaded')] });
    fixture.fallback!.anthropic.enqueue(replyAsAsked('anthropic', { text: ['From fallback'], usage: { input: 10, output: 2 } }));
    expect(await sendWithSdk(fixture.sdk, 'anthropic', modelOf.anthropic, true, 200)).toBe('From fallback');
  });
});
