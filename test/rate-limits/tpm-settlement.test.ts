import { afterEach, describe, expect, it } from 'vitest';
import { expectRateLimitError, payerKey2, rawRequest, sdkSend, startLimitsFixture, styles, type LimitsFixture } from './limits-fixture.js';
import { errorReply } from '../fakes/scripted-vendor-wire.js';

/**
 * Tokens per minute (docs/behaviour.md "Rate limits"): "charged the estimate up front and corrected to the
 * actual usage at settlement". The estimate is the prompt estimate (7 for the fixture prompt) plus the
 * output budget; the scripted upstreams report 10 + 1 actual tokens.
 */

let f: LimitsFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

describe('the estimate is held while in flight and corrected at settlement', () => {
  for (const style of styles) {
    for (const stream of [false, true]) {
      it(`${style}${stream ? ' (stream)' : ''}: two 907-token estimates do not fit tpm 1000 together, but do one after the other`, async () => {
        f = await startLimitsFixture({ tokenRateLimit: { tpm: 1000 } });
        // Together: the second one's estimate does not fit beside the first's.
        const together = await Promise.all([sdkSend(f.sdk(), style, { stream, maxTokens: 900 }), sdkSend(f.sdk(), style, { stream, maxTokens: 900 })]);
        expect(together.filter((error) => error === undefined).length).toBe(1);
        expectRateLimitError(style, together.find((error) => error !== undefined));
        await f.settled();
        // Settled at 11 tokens: the next 907 fits (11 + 907 <= 1000), and reports what is left.
        const next = await rawRequest(f.url, style, { stream, maxTokens: 900 });
        expect(next.status).toBe(200);
        expect(next.headers.get('x-ratelimit-limit-tokens')).toBe('1000');
        expect(next.headers.get('x-ratelimit-remaining-tokens')).toBe(String(1000 - 11 - 907));
        await next.text();
        await f.settled();
        expect(await sdkSend(f.sdk(), style, { stream, maxTokens: 900 })).toBeUndefined();
      });
    }
  }
});

describe('a request that produced nothing leaves nothing in the tokens window', () => {
  it('an upstream connection failure on every channel (502) gives the estimate back', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { tpm: 1000 } });
    f.primary.anthropic.setFallback({ ending: 'reset' });
    const failed = await rawRequest(f.url, 'anthropic', { maxTokens: 900 });
    expect(failed.status).toBe(502);
    await failed.text();
    await f.settled();
    f.primary.anthropic.setFallback((await import('./limits-fixture.js')).defaultAnswer('anthropic'));
    expect(await sdkSend(f.sdk(), 'anthropic', { maxTokens: 900 })).toBeUndefined();
  });

  it('an upstream 429 relayed to the client gives the estimate back', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { tpm: 1000 } });
    f.primary.gemini.setFallback(errorReply('gemini', 429, 'upstream busy'));
    const failed = await rawRequest(f.url, 'gemini', { maxTokens: 900 });
    expect(failed.status).toBe(429);
    await failed.text();
    await f.settled();
    f.primary.gemini.setFallback((await import('./limits-fixture.js')).defaultAnswer('gemini'));
    expect(await sdkSend(f.sdk(), 'gemini', { maxTokens: 900 })).toBeUndefined();
  });

  it('a request refused for quota (402) gives its estimate back to the per-user tokens window', async () => {
    // payer-key can pay for nothing; payer-key-2 (same user) is unlimited. User tpm 1000.
    f = await startLimitsFixture({ tokenQuota: 1_000, rateLimits: { per_user: { tpm: 1000 } } });
    const refused: any = await sdkSend(f.sdk(), 'openai-chat', { maxTokens: 900 });
    expect(refused?.status).toBe(402);
    expect(f.upstreamCalls()).toBe(0);
    await f.settled();
    // Nothing was produced, so the user's window should be empty: a 907-token estimate fits.
    const error: any = await sdkSend(f.sdk(payerKey2), 'openai-chat', { maxTokens: 900 });
    expect(error?.status, `the 402's 907-token estimate is still in the window: ${error?.message}`).toBeUndefined();
  });

  it('a request refused for quota (402) gives its estimate back to the token\'s own tokens window', async () => {
    // The key's quota is raised after the refusal (an operator top-up); its tpm window should be empty.
    f = await startLimitsFixture({ tokenQuota: 1_000, tokenRateLimit: { tpm: 1000 } });
    const refused: any = await sdkSend(f.sdk(), 'anthropic', { maxTokens: 900 });
    expect(refused?.status).toBe(402);
    await f.settled();
    const { db } = f.gateway.gateway.services.database;
    await db.updateTable('tokens').set({ remain_quota: 100_000_000 }).where('name', '=', 'payer-key').execute();
    await f.gateway.gateway.services.catalog.changed();
    const error: any = await sdkSend(f.sdk(), 'anthropic', { maxTokens: 900 });
    expect(error?.status, `the 402's 907-token estimate is still in the window: ${error?.message}`).toBeUndefined();
  });
});

describe('one request larger than the whole tpm limit', () => {
  it('is admitted into an empty window, as documented (its estimate counts as the whole limit), and fills it', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { tpm: 100 } });
    // ~500 estimated prompt tokens (each " wordN" is a new word run) against a 100-token limit.
    const prompt = Array.from({ length: 250 }, (_, index) => `word${index}`).join(' ');
    await sdkSend(f.sdk(), 'openai-chat', { prompt, maxTokens: 10 });
    expect(f.upstreamCalls()).toBe(1);
    // Settled at what the upstream reported (11 tokens): the next oversized request (capped at 100) no longer fits.
    const error: any = await sdkSend(f.sdk(), 'openai-chat', { prompt, maxTokens: 10 });
    expect(f.upstreamCalls()).toBe(1);
    expectRateLimitError('openai-chat', error);
  });
});
