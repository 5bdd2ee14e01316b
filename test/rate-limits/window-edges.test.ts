import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { durationSeconds, expectRateLimitError, loginPassword, rawRequest, sdkSend, startLimitsFixture, type LimitsFixture } from './limits-fixture.js';

/**
 * Window edges with the gateway's clock moved forward (startTestGateway's `now`, which the limiter reads),
 * and what identifies "one IP".
 */

let f: LimitsFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 10) {
    if (await condition()) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the one-minute window', () => {
  it('rolls over 60 s after its first request; Retry-After and the reset header count down to it', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 2 } });
    expect(await sdkSend(f.sdk(), 'openai-chat')).toBeUndefined();
    expect(await sdkSend(f.sdk(), 'openai-chat')).toBeUndefined();
    const first = await rawRequest(f.url, 'openai-chat');
    expect(first.status).toBe(429);
    expect(Number(first.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(Number(first.headers.get('retry-after'))).toBeLessThanOrEqual(60);

    f.advance(30_000);
    const half = await rawRequest(f.url, 'openai-chat');
    expect(half.status).toBe(429);
    const retryAfter = Number(half.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(durationSeconds(half.headers.get('x-ratelimit-reset-requests'))).toBe(retryAfter);

    f.advance(29_000);
    const almost = await rawRequest(f.url, 'openai-chat');
    expect(almost.status).toBe(429);
    expect(Number(almost.headers.get('retry-after'))).toBe(1);

    f.advance(1_000);
    const next = await rawRequest(f.url, 'openai-chat');
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(durationSeconds(next.headers.get('x-ratelimit-reset-requests'))).toBe(60);
    await next.text();
  });

  it('a request admitted in one window and settled in the next does not refund into the next window', async () => {
    // tpm 100. A (87-token estimate, 11 used) is admitted, the window ends while it streams, B opens the
    // next window (87 estimated, settled at 11). A's refund of 76 belongs to the ended window and must be
    // dropped (src/limits/rate-limiter.ts: "a refund to a window that already ended is dropped (it must
    // not grant extra units in the next one)"). The next window then holds 11, so a 95-token estimate
    // (11 + 95 > 100) must be refused.
    f = await startLimitsFixture({ tokenRateLimit: { tpm: 100 } });
    f.primary.anthropic.enqueue((request) => ({ ...replyFor('anthropic', { text: 'Hello there, friend', usage: { input: 10, output: 1 } }, request.body?.stream === true), delayMs: 60 }));
    const slowA = sdkSend(f.sdk(), 'anthropic', { stream: true, maxTokens: 80 });
    await until(() => f!.primary.anthropic.requests.length === 1, 'A to reach its upstream');

    f.advance(61_000);
    const b = await rawRequest(f.url, 'openai-chat', { maxTokens: 80 });
    expect(b.status).toBe(200);
    expect(b.headers.get('x-ratelimit-remaining-tokens')).toBe(String(100 - 87));
    await b.text();
    // Whichever of A and B settles first, the new window should end at B's 11 tokens.
    expect(await slowA).toBeUndefined();
    await f.settled();
    expect((await f.logs()).length).toBe(2);

    const c = await rawRequest(f.url, 'openai-chat', { maxTokens: 88 });
    await c.text();
    expect(c.status, `A's refund from the ended window was applied to the new one: C admitted with ${c.headers.get('x-ratelimit-remaining-tokens')} tokens left of 100 (window 11 → 0)`).toBe(429);
  });
});

describe('what one IP is', () => {
  /** The statuses of one chat request per X-Forwarded-For value, in order. */
  async function statusesWith(forwardedFor: string[]): Promise<number[]> {
    const statuses: number[] = [];
    for (const value of forwardedFor) {
      const response = await rawRequest(f!.url, 'openai-chat', { headers: { 'x-forwarded-for': value } });
      statuses.push(response.status);
      await response.text();
    }
    return statuses;
  }

  it('behind a trusted proxy (TRUST_PROXY=loopback), the X-Forwarded-For address is the client: one address is one client, two are two', async () => {
    f = await startLimitsFixture({ rateLimits: { per_ip: { rpm: 2 } }, env: { TRUST_PROXY: 'loopback' } });
    const headers = { 'x-forwarded-for': '203.0.113.5' };
    expect((await rawRequest(f.url, 'openai-chat', { headers })).status).toBe(200);
    expect((await rawRequest(f.url, 'openai-chat', { headers })).status).toBe(200);
    expect((await rawRequest(f.url, 'openai-chat', { headers })).status).toBe(429);
    expect((await rawRequest(f.url, 'openai-chat', { headers: { 'x-forwarded-for': '203.0.113.6' } })).status).toBe(200);
  });

  it('behind a trusted proxy that appends to X-Forwarded-For, the client is the address the proxy added, whatever the client wrote', async () => {
    f = await startLimitsFixture({ rateLimits: { per_ip: { rpm: 2 } }, env: { TRUST_PROXY: '127.0.0.1' } });
    expect(await statusesWith([0, 1, 2, 3].map((index) => `198.51.100.${index}, 203.0.113.77`))).toEqual([200, 200, 429, 429]);
  });

  it('a client connecting directly cannot escape the per-IP rpm by inventing X-Forwarded-For addresses', async () => {
    // Default deployment (no TRUST_PROXY): the connection's address, 127.0.0.1 each time, is the client.
    f = await startLimitsFixture({ rateLimits: { per_ip: { rpm: 2 } } });
    expect(await statusesWith([0, 1, 2, 3, 4, 5].map((index) => `198.51.100.${index}`))).toEqual([200, 200, 429, 429, 429, 429]);
    // Nor by writing what an appending proxy would produce.
    expect(await statusesWith([0, 1].map((index) => `198.51.100.${index}, 203.0.113.77`))).toEqual([429, 429]);
  });

  it('the failed-login throttle (per IP and name) cannot be reset by inventing X-Forwarded-For addresses', async () => {
    f = await startLimitsFixture({});
    const login = (password: string, headers: Record<string, string> = {}) =>
      fetch(`${f!.url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ username: 'payer', password }) });
    for (let attempt = 0; attempt < 20; attempt += 1) expect((await login(`wrong-${attempt}`)).status).toBe(401);
    expect((await login(loginPassword)).status).toBe(429);
    // The same guesser, one more header.
    const spoofed = await login(loginPassword, { 'x-forwarded-for': '198.51.100.99' });
    expect(spoofed.status, 'a new X-Forwarded-For value gives a fresh 20-guess budget').toBe(429);
  });
});

describe('SDK retries of a 429', () => {
  it('a refused request retried by the client takes nothing more from the window', async () => {
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 1 } });
    expect(await sdkSend(f.sdk(), 'openai-chat')).toBeUndefined();
    for (let index = 0; index < 10; index += 1) expectRateLimitError('openai-chat', await sdkSend(f.sdk(), 'openai-chat'));
    f.advance(60_000);
    expect(await sdkSend(f.sdk(), 'openai-chat')).toBeUndefined();
    expectRateLimitError('openai-chat', await sdkSend(f.sdk(), 'openai-chat'));
  });
});
