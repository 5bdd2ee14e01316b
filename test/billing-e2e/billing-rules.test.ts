import { APIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { countTextTokens } from '../../src/relay/count-tokens.js';
import { readBalances, readReservations } from './read-billing-state.js';
import { spenderKey, spenderTokenName, startBillingFixture, type BillingFixture } from './start-billing-fixture.js';

/**
 * docs/behaviour.md "Billing": settle at what the upstream reported; else, when an upstream answered
 * (2xx), the prompt plus the produced text counted locally; else nothing — and log which.
 *
 * Prices (start-billing-fixture.ts), at 500,000 quota per $: gpt-4o-mini $3 in / $15 out / $0.30 cache
 * read per 1M tokens = 1.5 / 7.5 / 0.15 quota per token; gpt-3.5-turbo-instruct $1.5 / $2 = 0.75 / 1.
 */
const grant = 10_000_000;
const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say hello' }] };
/** 'Say hello' is 2 tokens, plus 4 framing tokens for the one message. */
const chatPromptTokens = 6;
const reply = 'Hello from the fake upstream!';

describe('billing by the stated rule for each way a request ends', () => {
  let fixture: BillingFixture;
  afterEach(async () => {
    await fixture?.close();
  });

  async function start(upstreamOptions: Parameters<typeof startBillingFixture>[0]['upstreamOptions'] = {}) {
    fixture = await startBillingFixture({ dialect: 'sqlite', tokenQuota: grant, userQuota: grant, upstreamOptions });
  }

  /** Waits for the request to be settled and logged, then returns its log row and checks the books agree with it. */
  async function settledRequest() {
    const { gateway, db } = fixture;
    await gateway.settled();
    const rows = await db.selectFrom('logs').selectAll().execute();
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    const [reservation, ...others] = await readReservations(db);
    expect(others).toEqual([]);
    expect(reservation).toMatchObject({ id: row.request_id, state: 'settled', settledAmount: row.quota });
    const balances = await readBalances(db, spenderTokenName);
    expect(balances.token).toMatchObject({ used: row.quota, remain: grant - row.quota });
    expect(balances.user).toMatchObject({ used: row.quota, quota: grant - row.quota });
    return row;
  }

  it('counts the prompt and reply the way the hand-computed amounts below assume', async () => {
    expect(await countTextTokens('Say hello')).toBe(2);
    expect(await countTextTokens(reply)).toBe(6);
    expect(await countTextTokens('Hello')).toBe(1);
  });

  it('bills a completed stream at the usage the upstream reported, cache reads and reasoning included', async () => {
    await start({ promptTokens: 1000, completionTokens: 200, cachedTokens: 400, reasoningTokens: 50 });
    let text = '';
    for await (const chunk of await fixture.client.chat.completions.create({ ...chat, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(reply);

    const row = await settledRequest();
    // 600 plain input × 1.5 + 400 cache reads × 0.15 + 200 output (50 of them reasoning) × 7.5 = 900 + 60 + 1,500 = 2,460.
    expect(row).toMatchObject({ status: 200, is_stream: 1, usage_source: 'upstream', input_tokens: 1000, cache_read_tokens: 400, output_tokens: 200, reasoning_tokens: 50, quota: 2460 });
  });

  it('bills a completed stream whose upstream reported no usage at the prompt and reply counted locally', async () => {
    await start({ usageInStream: false });
    let text = '';
    for await (const chunk of await fixture.client.chat.completions.create({ ...chat, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(reply);
    // The gateway did ask for usage; this upstream just never sends it.
    expect(fixture.upstreamA.requests[0]!.body.stream_options).toEqual({ include_usage: true });

    const row = await settledRequest();
    // 6 prompt tokens × 1.5 + 6 reply tokens × 7.5 = 9 + 45 = 54: the exact count, not the estimate.
    expect(row).toMatchObject({ status: 200, usage_source: 'local', input_tokens: chatPromptTokens, output_tokens: 6, quota: 54, error: null });
    // The reservation was sized from the admission estimate ('Say' 1 + 'hello' ⌈5/3⌉ = 2, + 4 framing = 7)
    // and the default output budget: 7 × 1.5 + 4,096 × 7.5 = 30,730.5 → 30,731.
    expect(await readReservations(fixture.db)).toMatchObject([{ amount: 30_731, settledAmount: 54 }]);
  });

  it('bills a client that disconnects mid-stream for the prompt and the text it was sent, counted locally', async () => {
    // Five content chunks ('Hello', ' from ', 'the fa', …) 300 ms apart: the client leaves after the first.
    await start({ chunkDelayMs: 300 });
    const controller = new AbortController();
    const response = await fetch(`${fixture.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, stream: true }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const received = await readStreamedContentUntil(response, (content) => content.length > 0);
    controller.abort();
    const abortedAt = Date.now();
    expect(received).toBe('Hello');

    const row = await settledRequest();
    // Settled well before the rest of the reply (six more events, 1.8 s) could have arrived: the upstream
    // request was aborted at once rather than read to its end.
    expect(Date.now() - abortedAt).toBeLessThan(1500);
    // 6 prompt tokens × 1.5 + 1 output token ('Hello') × 7.5 = 9 + 7.5 = 16.5 → rounded half up to 17.
    expect(row).toMatchObject({ status: 499, usage_source: 'local', input_tokens: chatPromptTokens, output_tokens: 1, quota: 17, error: 'client disconnected' });
    expect(fixture.upstreamA.requests).toHaveLength(1);
  });

  it('bills a chat stream the upstream cut after its first (role-only) chunk for the prompt alone', async () => {
    await start();
    fixture.upstreamA.enqueueFault({ kind: 'cut-after-first-chunk' });
    const stream = await fixture.client.chat.completions.create({ ...chat, stream: true });
    const failure = await (async () => {
      for await (const _chunk of stream) {
        // the in-band error event ends the loop with an APIError
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);

    const row = await settledRequest();
    // 6 prompt tokens × 1.5 = 9; nothing was produced.
    expect(row).toMatchObject({ status: 200, usage_source: 'local', input_tokens: chatPromptTokens, output_tokens: 0, quota: 9 });
    expect(row.error).toContain('upstream stream interrupted');
    // Bytes had reached the client: no retry on the other channel.
    expect(fixture.upstreamB.requests).toHaveLength(0);
  });

  it('bills a legacy completion stream the upstream cut after its first text chunk for the prompt and that text', async () => {
    await start();
    fixture.upstreamA.enqueueFault({ kind: 'cut-after-first-chunk' });
    const stream = await fixture.client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hello', stream: true });
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    expect(text).toBe('Hello');

    const row = await settledRequest();
    // 2 prompt tokens × 0.75 + 1 output token × 1 = 2.5 → rounded half up to 3.
    expect(row).toMatchObject({ status: 200, usage_source: 'local', input_tokens: 2, output_tokens: 1, quota: 3 });
    expect(row.error).toContain('upstream stream interrupted');
  });

  for (const stream of [false, true]) {
    it(`charges nothing when every channel answers 500 after retries (${stream ? 'streaming' : 'non-streaming'})`, async () => {
      await start();
      const serverError = { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } };
      fixture.upstreamA.enqueueFault({ kind: 'status', status: 500, body: serverError });
      fixture.upstreamB.enqueueFault({ kind: 'status', status: 500, body: serverError });

      const failure = await fixture.client.chat.completions.create({ ...chat, stream }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(APIError);
      expect((failure as APIError).status).toBe(500);
      expect((failure as APIError).error).toEqual(serverError.error);
      expect((failure as APIError).headers?.get('x-relay-attempts')).toBe('2');
      expect(fixture.upstreamRequestCount()).toBe(2);

      const row = await settledRequest();
      expect(row).toMatchObject({ status: 500, usage_source: 'none', input_tokens: 0, output_tokens: 0, quota: 0, channel_id: expect.any(Number) });
      expect(JSON.parse(row.attempts).map((attempt: { status: number }) => attempt.status)).toEqual([500, 500]);
    });
  }
});

/** Reads an OpenAI chat SSE body until the concatenated `delta.content` satisfies `enough`. */
async function readStreamedContentUntil(response: Response, enough: (content: string) => boolean): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let content = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return content;
    buffered += decoder.decode(value, { stream: true });
    let boundary = buffered.indexOf('\n\n');
    while (boundary >= 0) {
      const event = buffered.slice(0, boundary);
      buffered = buffered.slice(boundary + 2);
      boundary = buffered.indexOf('\n\n');
      const data = event.split('\n').find((line) => line.startsWith('data: '))?.slice('data: '.length);
      if (data === undefined || data === '[DONE]') continue;
      const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string } }[] };
      content += chunk.choices?.[0]?.delta?.content ?? '';
      if (enough(content)) return content;
    }
  }
}
