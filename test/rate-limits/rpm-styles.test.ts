import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { durationSeconds, endpointModels, expectRateLimitError, payerKey, rawRequest, sdkSend, startLimitsFixture, styles, type LimitsFixture } from './limits-fixture.js';

/**
 * Requests per minute per token, in every client style: exactly `limit` pass, the next is a 429 in the
 * style's envelope that its SDK raises as its own rate-limit error, with consistent `x-ratelimit-*` and
 * `Retry-After`; the refusal calls no upstream, reserves nothing and charges nothing.
 */

let f: LimitsFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

describe('token rpm in every client style', () => {
  for (const style of styles) {
    for (const stream of [false, true]) {
      it(`${style}${stream ? ' (stream)' : ''}: 3 pass with remaining 2, 1, 0; the 4th is the SDK's 429 and touches nothing`, async () => {
        f = await startLimitsFixture({ tokenRateLimit: { rpm: 3 } });
        const remaining: string[] = [];
        for (let index = 0; index < 3; index += 1) {
          const response = await rawRequest(f.url, style, { stream, maxTokens: 50 });
          expect(response.status).toBe(200);
          await response.text();
          expect(response.headers.get('x-ratelimit-limit-requests')).toBe('3');
          remaining.push(response.headers.get('x-ratelimit-remaining-requests') ?? 'missing');
          const reset = durationSeconds(response.headers.get('x-ratelimit-reset-requests'));
          expect(reset).toBeGreaterThan(0);
          expect(reset).toBeLessThanOrEqual(60);
        }
        expect(remaining).toEqual(['2', '1', '0']);
        await f.settled();
        const callsBefore = f.upstreamCalls();
        const booksBefore = await f.balances();
        const reservationsBefore = await f.reservations();
        const logsBefore = (await f.logs()).length;

        const error: any = await sdkSend(f.sdk(), style, { stream, maxTokens: 50 });
        expectRateLimitError(style, error);

        // The same refusal by hand, to read its headers.
        const refused = await rawRequest(f.url, style, { stream, maxTokens: 50 });
        expect(refused.status).toBe(429);
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('3');
        expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
        expect(durationSeconds(refused.headers.get('x-ratelimit-reset-requests'))).toBe(retryAfter);
        expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
        expect(refused.headers.get('content-type')).toContain('application/json');

        expect(f.upstreamCalls()).toBe(callsBefore);
        expect(await f.balances()).toEqual(booksBefore);
        expect(await f.reservations()).toEqual(reservationsBefore);
        expect(reservationsBefore.map((row) => row.state)).toEqual(['settled', 'settled', 'settled']);
        // A refusal before admission writes no log row (the docs say nothing either way).
        expect((await f.logs()).length).toBe(logsBefore);
      });
    }
  }
});

describe('token rpm on the other OpenAI endpoints', () => {
  it('completions, embeddings, moderations and rerank share the token window; the 5th request of each is a RateLimitError', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 4 } });
    const client = f.sdk().openai;
    const rerank = () =>
      fetch(`${f!.url}/v1/rerank`, { method: 'POST', headers: { authorization: `Bearer ${payerKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: endpointModels.rerank, query: 'q', documents: ['d'] }) });
    const remaining: (string | null)[] = [];
    remaining.push((await client.completions.create({ model: endpointModels.completions, prompt: 'Say hello', max_tokens: 5 }).withResponse()).response.headers.get('x-ratelimit-remaining-requests'));
    remaining.push((await client.embeddings.create({ model: endpointModels.embeddings, input: 'hello', encoding_format: 'float' }).withResponse()).response.headers.get('x-ratelimit-remaining-requests'));
    remaining.push((await client.moderations.create({ input: 'hello' }).withResponse()).response.headers.get('x-ratelimit-remaining-requests'));
    const ranked = await rerank();
    expect(ranked.status).toBe(200);
    remaining.push(ranked.headers.get('x-ratelimit-remaining-requests'));
    expect(remaining).toEqual(['3', '2', '1', '0']);
    const calls = f.upstreamCalls();

    const refusals = [
      await client.completions.create({ model: endpointModels.completions, prompt: 'Say hello', max_tokens: 5 }).catch((error: unknown) => error),
      await client.embeddings.create({ model: endpointModels.embeddings, input: 'hello', encoding_format: 'float' }).catch((error: unknown) => error),
      await client.moderations.create({ input: 'hello' }).catch((error: unknown) => error),
    ];
    for (const error of refusals) {
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect((error as any).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    }
    const refusedRerank = await rerank();
    expect(refusedRerank.status).toBe(429);
    expect(await refusedRerank.json()).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
    expect(f.upstreamCalls()).toBe(calls);
    expect((await f.reservations()).filter((row) => row.state !== 'settled')).toEqual([]);
  });
});

describe('model lists are not rate limited and take no budget', () => {
  // Token counts are limited: count-tokens-rpm.test.ts.
  it('model lists (three styles) answer 200 whatever the rpm window holds', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 1 } });
    const listings = async () => {
      const statuses: number[] = [];
      statuses.push((await fetch(`${f!.url}/v1/models`, { headers: { authorization: `Bearer ${payerKey}` } })).status);
      statuses.push((await fetch(`${f!.url}/v1/models`, { headers: { 'x-api-key': payerKey, 'anthropic-version': '2023-06-01' } })).status);
      statuses.push((await fetch(`${f!.url}/v1beta/models`, { headers: { 'x-goog-api-key': payerKey } })).status);
      return statuses;
    };
    for (let round = 0; round < 3; round += 1) expect(await listings()).toEqual([200, 200, 200]);
    // The single request of the window is still available.
    expect(await sdkSend(f.sdk(), 'openai-chat')).toBeUndefined();
    expectRateLimitError('openai-chat', await sdkSend(f.sdk(), 'openai-chat'));
    expect(await listings()).toEqual([200, 200, 200]);
  });
});
