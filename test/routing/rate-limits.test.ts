import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { adminUserKey, channel, startFixture, userKey, userKey2, type Fixture } from './routing-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const limitedKey = `sk-${'l'.repeat(48)}`;
const tpmKey = `sk-${'t'.repeat(48)}`;

function tokens(extra: NonNullable<ConfigFile['tokens']> = []): NonNullable<ConfigFile['tokens']> {
  return [
    { name: 'alice-key', user: 'alice', key: userKey, quota: 100_000_000, expires_at: 0, enabled: true },
    { name: 'alice-key2', user: 'alice', key: userKey2, quota: 100_000_000, expires_at: 0, enabled: true },
    { name: 'boss-key', user: 'boss', key: adminUserKey, quota: 100_000_000, expires_at: 0, enabled: true },
    ...extra,
  ];
}

async function tokenRow(f: Fixture, name: string) {
  await f.gateway.settled();
  return f.gateway.gateway.services.database.db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('name', '=', name).executeTakeFirstOrThrow();
}

const upstreamCalls = (f: Fixture) => f.ups.reduce((sum, up) => sum + up.requests.length, 0);

describe('rate limits', () => {
  it('per-IP rpm counts every key from the IP together; the refused request calls nothing and takes no quota', async () => {
    fx = await startFixture({ upstreams: 1, channels: ([a]) => [channel('a', a!)], config: { rate_limits: { per_ip: { rpm: 3 } } } });
    expect((await fx.chat(userKey)).status).toBe(200);
    expect((await fx.chat(userKey2)).status).toBe(200);
    expect((await fx.chat(adminUserKey)).status).toBe(200);
    const before = upstreamCalls(fx);
    const quotaBefore = await tokenRow(fx, 'boss-key');
    const refused = await fx.chat(adminUserKey);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as any;
    expect(body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(upstreamCalls(fx)).toBe(before);
    expect(await tokenRow(fx, 'boss-key')).toEqual(quotaBefore);
  });

  it('per-user rpm spans the user\'s keys, not other users', async () => {
    fx = await startFixture({ upstreams: 1, channels: ([a]) => [channel('a', a!)], config: { rate_limits: { per_user: { rpm: 2 } } } });
    expect((await fx.chat(userKey)).status).toBe(200);
    expect((await fx.chat(userKey2)).status).toBe(200);
    expect((await fx.chat(userKey)).status).toBe(429);
    expect((await fx.chat(adminUserKey)).status).toBe(200);
  });

  it('all-or-nothing: a request refused by the token rpm does not use the user rpm', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!)],
      config: { rate_limits: { per_user: { rpm: 2 } }, tokens: tokens([{ name: 'limited', user: 'alice', key: limitedKey, quota: 100_000_000, expires_at: 0, enabled: true, rate_limit: { rpm: 1 } }]) },
    });
    expect((await fx.chat(limitedKey)).status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await fx.chat(limitedKey)).status).toBe(429);
    expect((await fx.chat(userKey)).status).toBe(200);
  });

  it('429 in the Anthropic envelope through the Anthropic SDK, with retry-after', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!)],
      config: { tokens: tokens([{ name: 'limited', user: 'alice', key: limitedKey, quota: 100_000_000, expires_at: 0, enabled: true, rate_limit: { rpm: 1 } }]) },
    });
    const client = new Anthropic({ apiKey: limitedKey, baseURL: fx.url, maxRetries: 0 });
    const request = () => client.messages.create({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
    await request();
    const error = (await request().catch((e: unknown) => e)) as any;
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(Number(error.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('429 in the Gemini envelope through @google/genai', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!)],
      config: { tokens: tokens([{ name: 'limited', user: 'alice', key: limitedKey, quota: 100_000_000, expires_at: 0, enabled: true, rate_limit: { rpm: 1 } }]) },
    });
    const client = new GoogleGenAI({ apiKey: limitedKey, httpOptions: { baseUrl: fx.url } });
    await client.models.generateContent({ model: 'gpt-4o-mini', contents: 'hi' });
    const error = (await client.models.generateContent({ model: 'gpt-4o-mini', contents: 'hi' }).catch((e: unknown) => e)) as any;
    expect(error.status).toBe(429);
    const parsed = JSON.parse(String(error.message).slice(String(error.message).indexOf('{')));
    expect(parsed.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
  });

  it('429 through the OpenAI SDK is a RateLimitError', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!)],
      config: { tokens: tokens([{ name: 'limited', user: 'alice', key: limitedKey, quota: 100_000_000, expires_at: 0, enabled: true, rate_limit: { rpm: 1 } }]) },
    });
    const client = new OpenAI({ apiKey: limitedKey, baseURL: `${fx.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const error = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it('tpm: charged the estimate up front, corrected to actual usage at settlement', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!)],
      config: { tokens: tokens([{ name: 'tpm', user: 'alice', key: tpmKey, quota: 100_000_000, expires_at: 0, enabled: true, rate_limit: { tpm: 1000 } }]) },
    });
    // max_tokens 5000: the estimate is capped at the limit and fills the window until settled.
    const first = await fx.chat(tpmKey, { max_tokens: 5000 });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('1000');
    expect(first.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    await fx.gateway.settled();
    // actual usage was 10 + 5 = 15 tokens; a small request now fits
    const second = await fx.chat(tpmKey, { max_tokens: 20 });
    expect(second.status).toBe(200);
    const remaining = Number(second.headers.get('x-ratelimit-remaining-tokens'));
    expect(remaining).toBeGreaterThanOrEqual(1000 - 15 - 20 - 20);
    expect(remaining).toBeLessThanOrEqual(1000 - 15 - 20);
  });

  it('tpm: a failed request (no upstream answered) gives its estimate back', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!)],
      fallback: [{ status: 500, json: { error: { message: 'down' } } }],
      config: { tokens: tokens([{ name: 'tpm', user: 'alice', key: tpmKey, quota: 100_000_000, expires_at: 0, enabled: true, rate_limit: { tpm: 1000 } }]) },
    });
    expect((await fx.chat(tpmKey, { max_tokens: 5000 })).status).toBe(500);
    await fx.gateway.settled();
    fx.ups[0]!.setFallback(undefined);
    fx.ups[0]!.enqueue({ json: { id: 'x', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } });
    const next = await fx.chat(tpmKey, { max_tokens: 900 });
    expect(next.status).toBe(200);
  });

  it('per-user tpm refuses with the tokens kind in headers and message', async () => {
    fx = await startFixture({ upstreams: 1, channels: ([a]) => [channel('a', a!)], config: { rate_limits: { per_user: { tpm: 100 } } } });
    // actual usage 250 tokens: above the whole limit once settled
    fx.ups[0]!.enqueue({ json: { id: 'x', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 200, completion_tokens: 50, total_tokens: 250 } } });
    expect((await fx.chat(userKey, { max_tokens: 5000 })).status).toBe(200);
    await fx.gateway.settled();
    const refused = await fx.chat(userKey2, { max_tokens: 10 });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit-tokens')).toBe('100');
    expect(((await refused.json()) as any).error.message).toContain('tokens');
  });
});
