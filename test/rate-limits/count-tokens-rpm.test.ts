import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { durationSeconds, expectRateLimitError, modelOf, otherKey, payerKey, payerKey2, rawRequest, sdkSend, startLimitsFixture, unpricedModel, type LimitsFixture } from './limits-fixture.js';

/**
 * The local token counts — Anthropic `messages.countTokens` for a model no Anthropic channel serves, and
 * Gemini `models.countTokens` — count one request against the caller's requests-per-minute windows (its
 * key's, its user's, its address's), the windows relay requests fill, and are refused with the style's 429
 * once one is full: the exact o200k count of a large body is the gateway's CPU time, which a key must not
 * be able to ask for without end (docs/behaviour.md "Rate limits"). They take nothing from a tokens window,
 * are not refused by a full one, and are never charged.
 */

let f: LimitsFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

/** Counted locally: no Anthropic channel serves the Chat channel's model. */
const localAnthropicModel = modelOf['openai-chat'];
const geminiModel = modelOf.gemini;
const countParams = { model: localAnthropicModel, messages: [{ role: 'user' as const, content: 'Say hello' }] };

/** Resolves to the error the SDK raised, or undefined when the count was answered. */
function anthropicCount(f: LimitsFixture, key = payerKey, params: Anthropic.MessageCountTokensParams = countParams): Promise<unknown> {
  return f.sdk(key).anthropic.messages.countTokens(params).then(
    (answer) => {
      expect(answer.input_tokens).toBeGreaterThan(0);
      return undefined;
    },
    (error: unknown) => error,
  );
}

function geminiCount(f: LimitsFixture, key = payerKey, text = 'Say hello'): Promise<unknown> {
  return f.sdk(key).gemini.models.countTokens({ model: geminiModel, contents: text }).then(
    (answer) => {
      expect(answer.totalTokens).toBeGreaterThan(0);
      return undefined;
    },
    (error: unknown) => error,
  );
}

function rawAnthropicCount(url: string, key = payerKey): Promise<Response> {
  return fetch(`${url}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify(countParams),
  });
}

function rawGeminiCount(url: string, key = payerKey, model = geminiModel): Promise<Response> {
  return fetch(`${url}/v1beta/models/${model}:countTokens`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] }),
  });
}

describe('local token counts against the key rpm', () => {
  it('messages.countTokens: 3 pass with remaining 2, 1, 0; the 4th is the SDK RateLimitError (rate_limit_error) and a relay request is refused too', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 3 } });
    const remaining: (string | null)[] = [];
    for (let index = 0; index < 3; index += 1) {
      const { data, response } = await f.sdk().anthropic.messages.countTokens(countParams).withResponse();
      expect(data.input_tokens).toBeGreaterThan(0);
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('3');
      remaining.push(response.headers.get('x-ratelimit-remaining-requests'));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    expectRateLimitError('anthropic', await anthropicCount(f));
    const refused = await rawAnthropicCount(f.url);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(durationSeconds(refused.headers.get('x-ratelimit-reset-requests'))).toBe(retryAfter);
    expect(refused.headers.get('request-id')).toMatch(/^[0-9a-f]{32}$/);

    // The counts filled the window relay requests use.
    expectRateLimitError('anthropic', await sdkSend(f.sdk(), 'anthropic'));
    expect(f.upstreamCalls()).toBe(0);
    // Another key of the same user has a window of its own.
    expect(await anthropicCount(f, payerKey2)).toBeUndefined();
  });

  it('models.countTokens (Gemini): 3 pass, the 3rd with remaining 0; the 4th is RESOURCE_EXHAUSTED 429 and a relay request is refused too', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 3 } });
    for (let index = 0; index < 2; index += 1) expect(await geminiCount(f)).toBeUndefined();
    const third = await rawGeminiCount(f.url);
    expect(third.status).toBe(200);
    expect(((await third.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    expect(third.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(third.headers.get('x-ratelimit-remaining-requests')).toBe('0');

    expectRateLimitError('gemini', await geminiCount(f));
    const refused = await rawGeminiCount(f.url);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('Rate limit') } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);

    expectRateLimitError('gemini', await sdkSend(f.sdk(), 'gemini'));
    expect(f.upstreamCalls()).toBe(0);
  });

  it('counts and relay requests share one window: a generation, an Anthropic count and a Gemini count fill rpm 3 in any style', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 3 } });
    expect(await sdkSend(f.sdk(), 'openai-chat')).toBeUndefined();
    expect(await anthropicCount(f)).toBeUndefined();
    expect(await geminiCount(f)).toBeUndefined();
    await f.settled();
    const calls = f.upstreamCalls();
    const books = await f.balances();

    expectRateLimitError('openai-chat', await sdkSend(f.sdk(), 'openai-chat'));
    expectRateLimitError('anthropic', await anthropicCount(f));
    expectRateLimitError('gemini', await geminiCount(f));
    expect(f.upstreamCalls()).toBe(calls);
    expect(await f.balances()).toEqual(books);

    // The window ends a minute after its first request; counting is served again.
    f.advance(61_000);
    expect(await anthropicCount(f)).toBeUndefined();
    expect(await geminiCount(f)).toBeUndefined();
  });

  it('a count refused before admission (unpriced model, model outside model_limits) takes nothing from the window', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 1 }, modelLimits: [localAnthropicModel, geminiModel, unpricedModel] });
    const unpriced = await rawGeminiCount(f.url, payerKey, unpricedModel);
    expect(unpriced.status).toBe(400);
    const outside = await f
      .sdk()
      .anthropic.messages.countTokens({ ...countParams, model: modelOf.anthropic })
      .catch((error: unknown) => error);
    expect(outside).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(await geminiCount(f)).toBeUndefined();
    expectRateLimitError('anthropic', await anthropicCount(f));
  });
});

describe('local token counts against the user and IP rpm', () => {
  it("per user: counts from either of the user's keys fill the user's window; another user is served", async () => {
    f = await startLimitsFixture({ rateLimits: { per_user: { rpm: 2 } } });
    expect(await anthropicCount(f, payerKey)).toBeUndefined();
    expect(await geminiCount(f, payerKey2)).toBeUndefined();
    expectRateLimitError('gemini', await geminiCount(f, payerKey));
    expectRateLimitError('anthropic', await anthropicCount(f, payerKey2));
    expectRateLimitError('openai-chat', await sdkSend(f.sdk(payerKey2), 'openai-chat'));
    expect(await anthropicCount(f, otherKey)).toBeUndefined();
  });

  it("per IP: counts fill the address's window across users", async () => {
    f = await startLimitsFixture({ rateLimits: { per_ip: { rpm: 2 } } });
    expect(await geminiCount(f, payerKey)).toBeUndefined();
    expect(await anthropicCount(f, otherKey)).toBeUndefined();
    expectRateLimitError('anthropic', await anthropicCount(f, payerKey2));
    const refused = await rawRequest(f.url, 'gemini');
    expect(refused.status).toBe(429);
  });
});

describe('local token counts and the tokens windows', () => {
  it('a count of a large body takes nothing from the token tpm, is served when the tpm refuses a generation, and writes no log row', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 100, tpm: 200 } });
    const large = 'The quick brown fox jumps over the lazy dog. '.repeat(400);
    for (let index = 0; index < 5; index += 1) {
      expect(await anthropicCount(f, payerKey, { model: localAnthropicModel, messages: [{ role: 'user', content: large }] })).toBeUndefined();
      expect(await geminiCount(f, payerKey, large)).toBeUndefined();
    }
    // The tokens window is still empty: a relay request of 7 + 50 estimated tokens leaves 143.
    const response = await rawRequest(f.url, 'anthropic', { maxTokens: 50 });
    expect(response.status).toBe(200);
    await response.text();
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe('143');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('89');

    // A request the tokens window has no room for is refused; a count is not.
    const tooLarge = await rawRequest(f.url, 'anthropic', { maxTokens: 4096 });
    expect(tooLarge.status).toBe(429);
    expect(await tooLarge.json()).toMatchObject({ error: { type: 'rate_limit_error', message: expect.stringContaining('tokens per minute') } });
    expect(await anthropicCount(f)).toBeUndefined();
    expect(await geminiCount(f)).toBeUndefined();
    expect((await f.logs()).length).toBe(1);
  });
});
