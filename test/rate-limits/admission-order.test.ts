import { afterEach, describe, expect, it } from 'vitest';
import { expectRateLimitError, modelOf, otherKey, payerKey, payerKey2, rawRequest, sdkSend, startLimitsFixture, styles, unpricedModel, type LimitsFixture } from './limits-fixture.js';
import { errorReply } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge } from '../billing-edges/billing-fixture.js';

/**
 * Concurrency against the windows, failover, and which refusal comes first (401, 400, 403, 429, 402):
 * a request refused before admission must not use rate budget, and one limit refusing must not use the
 * others (all or nothing).
 */

let f: LimitsFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const oneCharge = expectedCharge({ input: 10, output: 1 });

describe('30 simultaneous requests against rpm 10: exactly 10 served', () => {
  for (const style of styles) {
    it(`token rpm, ${style} client through its SDK`, async () => {
      f = await startLimitsFixture({ tokenRateLimit: { rpm: 10 } });
      const sdk = f.sdk();
      const outcomes = await Promise.all(Array.from({ length: 30 }, () => sdkSend(sdk, style, { maxTokens: 20 })));
      const refused = outcomes.filter((error) => error !== undefined);
      expect(outcomes.length - refused.length).toBe(10);
      for (const error of refused) expectRateLimitError(style, error);
      expect(f.upstreamCalls()).toBe(10);
      const reservations = await f.reservations();
      expect(reservations.length).toBe(10);
      expect(reservations.every((row) => row.state === 'settled')).toBe(true);
      const books = await f.balances();
      expect(books.tokenUsed).toBe(10 * oneCharge);
      expect(books.userUsed).toBe(10 * oneCharge);
      expect((await f.logs()).length).toBe(10);
    });
  }

  it('per-user rpm across two keys of the user (15 + 15 at once); the other user is unaffected', async () => {
    f = await startLimitsFixture({ rateLimits: { per_user: { rpm: 10 } } });
    const first = f.sdk(payerKey);
    const second = f.sdk(payerKey2);
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, index) => sdkSend(index % 2 === 0 ? first : second, 'anthropic', { maxTokens: 20 })));
    expect(outcomes.filter((error) => error === undefined).length).toBe(10);
    for (const error of outcomes.filter((error) => error !== undefined)) expectRateLimitError('anthropic', error);
    expect(await sdkSend(f.sdk(otherKey), 'anthropic', { maxTokens: 20 })).toBeUndefined();
    expect(f.upstreamCalls()).toBe(11);
  });

  it('per-IP rpm across users (30 at once from one address)', async () => {
    f = await startLimitsFixture({ rateLimits: { per_ip: { rpm: 10 } } });
    const clients = [f.sdk(payerKey), f.sdk(payerKey2), f.sdk(otherKey)];
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, index) => sdkSend(clients[index % 3]!, 'gemini', { maxTokens: 20 })));
    expect(outcomes.filter((error) => error === undefined).length).toBe(10);
    for (const error of outcomes.filter((error) => error !== undefined)) expectRateLimitError('gemini', error);
    expect(f.upstreamCalls()).toBe(10);
  });
});

describe('failover counts once', () => {
  it('two requests that each fail over to the second channel use 2 of rpm 2; the third is refused without a call', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 2 }, fallbacks: true });
    f.primary['openai-chat'].setFallback(errorReply('openai-chat', 500, 'primary down'));
    const remaining: (string | null)[] = [];
    for (let index = 0; index < 2; index += 1) {
      const response = await rawRequest(f.url, 'openai-chat', { maxTokens: 20 });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-relay-attempts')).toBe('2');
      remaining.push(response.headers.get('x-ratelimit-remaining-requests'));
      await response.text();
    }
    expect(remaining).toEqual(['1', '0']);
    const calls = f.upstreamCalls();
    expect(calls).toBe(4);
    expectRateLimitError('openai-chat', await sdkSend(f.sdk(), 'openai-chat', { maxTokens: 20 }));
    expect(f.upstreamCalls()).toBe(calls);
  });
});

describe('refusals before admission take no rate budget', () => {
  it('a flood of bad keys (401) from the address does not use the per-IP window', async () => {
    f = await startLimitsFixture({ rateLimits: { per_ip: { rpm: 2 } } });
    for (let index = 0; index < 20; index += 1) {
      const response = await rawRequest(f.url, 'openai-chat', { key: `sk-${'x'.repeat(47)}${index % 10}` });
      expect(response.status).toBe(401);
    }
    expect((await rawRequest(f.url, 'openai-chat', { key: 'not-even-a-key' })).status).toBe(401);
    expect(await sdkSend(f.sdk(), 'openai-chat')).toBeUndefined();
    expect(await sdkSend(f.sdk(otherKey), 'openai-chat')).toBeUndefined();
    expectRateLimitError('openai-chat', await sdkSend(f.sdk(), 'openai-chat'));
  });

  it('bad bodies (400), unknown model (403 under model_limits), unpriced model (400) and a model the key may not use (403) do not use the token window', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 1, tpm: 1000 }, modelLimits: [modelOf['openai-chat'], modelOf.anthropic, unpricedModel] });
    const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${payerKey}` }) =>
      fetch(`${f!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    const statuses = [
      (await post('/v1/chat/completions', '{not json')).status,
      (await post('/v1/chat/completions', { model: modelOf['openai-chat'], messages: [] })).status,
      (await post('/v1/chat/completions', { model: modelOf['openai-chat'], messages: [{ role: 'wizard', content: 'x' }] })).status,
      (await post('/v1/chat/completions', { model: modelOf['openai-chat'], messages: [{ role: 'user', content: 'x' }], max_tokens: -1 })).status,
      (await post('/v1/messages', { model: modelOf.anthropic, messages: [{ role: 'user', content: 'x' }] }, { 'x-api-key': payerKey, 'anthropic-version': '2023-06-01' })).status,
      (await post('/v1/chat/completions', { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] })).status,
      (await post('/v1/chat/completions', { model: unpricedModel, messages: [{ role: 'user', content: 'x' }] })).status,
      (await post('/v1/chat/completions', { model: modelOf.gemini, messages: [{ role: 'user', content: 'x' }] })).status,
    ];
    // An unknown model is outside the key's model_limits: 403 before 400 model_not_found.
    expect(statuses).toEqual([400, 400, 400, 400, 400, 403, 400, 403]);
    expect(f.upstreamCalls()).toBe(0);
    // The one request of the window, with a 900-token budget that needs the whole tpm window too.
    expect(await sdkSend(f.sdk(), 'openai-chat', { maxTokens: 900 })).toBeUndefined();
    expectRateLimitError('openai-chat', await sdkSend(f.sdk(), 'openai-chat'));
  });

  it('rate limit is checked before the balance: a rate-limited request short of quota gets 429, not 402', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 1 }, tokenQuota: 1_000 });
    expect(await sdkSend(f.sdk(), 'openai-chat', { maxTokens: 10 })).toBeUndefined();
    const error: any = await sdkSend(f.sdk(), 'openai-chat', { maxTokens: 100_000 });
    expectRateLimitError('openai-chat', error);
  });

  it('a token refused by its own rpm does not use the per-user or per-IP windows (all or nothing)', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 1 }, rateLimits: { per_user: { rpm: 3 }, per_ip: { rpm: 4 } } });
    expect(await sdkSend(f.sdk(), 'openai-chat')).toBeUndefined();
    for (let index = 0; index < 5; index += 1) expectRateLimitError('openai-chat', await sdkSend(f.sdk(), 'openai-chat'));
    expect(await sdkSend(f.sdk(payerKey2), 'openai-chat')).toBeUndefined();
    expect(await sdkSend(f.sdk(payerKey2), 'openai-chat')).toBeUndefined();
    expectRateLimitError('openai-chat', await sdkSend(f.sdk(payerKey2), 'openai-chat'));
    expect(await sdkSend(f.sdk(otherKey), 'openai-chat')).toBeUndefined();
    expectRateLimitError('openai-chat', await sdkSend(f.sdk(otherKey), 'openai-chat'));
  });
});

describe('the playground shares the per-user window', () => {
  it('/pg/chat/completions (session, playground token) and the user\'s API key count together under per-user rpm', async () => {
    const { loginPassword } = await import('./limits-fixture.js');
    f = await startLimitsFixture({ rateLimits: { per_user: { rpm: 2 } } });
    const login = await fetch(`${f.url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'payer', password: loginPassword }) });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const playground = () =>
      fetch(`${f!.url}/pg/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ model: modelOf['openai-chat'], messages: [{ role: 'user', content: 'Say hello' }] }) });
    expect(await sdkSend(f.sdk(), 'openai-chat')).toBeUndefined();
    const first = await playground();
    expect(first.status).toBe(200);
    await first.text();
    const refused = await playground();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
    expectRateLimitError('openai-chat', await sdkSend(f.sdk(payerKey2), 'openai-chat'));
  });
});
