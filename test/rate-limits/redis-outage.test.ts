/**
 * From the limits audit: the gateway with REDIS_URL when its Redis stops answering or goes away mid-run.
 * admit-request.ts fails open ("Rate limits protect capacity, not money: when their store is unreachable,
 * serve and say so") — within the limiter's 1 s command timeout when Redis stalls, and a request served so
 * refunds nothing into the window at settlement (its estimate was never counted). Each test runs its own
 * redis-server so it can kill or freeze it: run where the Redis suites run (RELAY_TEST_REDIS_URL, as CI sets).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultAnswer, rawRequest, startLimitsFixture, type LimitsFixture } from './limits-fixture.js';
import { startOwnRedis, type OwnRedis } from '../support/own-redis.js';
import { serverUrls } from '../support/test-databases.js';

let f: LimitsFixture | undefined;
let redis: OwnRedis | undefined;
const pending: Promise<unknown>[] = [];
afterEach(async () => {
  // Redis first: a frozen one would hold the gateway's close until its pending commands time out.
  await redis?.close();
  // A request held by the frozen Redis is answered once Redis is gone (ioredis then fails the command).
  await Promise.all(pending.splice(0).map((answer) => Promise.race([answer, sleep(10_000)])));
  await f?.close();
  f = undefined;
  redis = undefined;
});

/** The status of a request, or 'no answer' when none came within `ms`. */
async function statusWithin(response: Promise<Response>, ms: number): Promise<number | 'no answer'> {
  const timeout = sleep(ms).then(() => 'no answer' as const);
  const answered = response.then(async (r) => (await r.text(), r.status)).catch(() => 'no answer' as const);
  pending.push(answered);
  return Promise.race([answered, timeout]);
}

describe.skipIf(serverUrls.redis === undefined)('Redis limiter: Redis down mid-run', () => {
  it('Redis killed: a rate-limited key is still served (fail open), promptly', async () => {
    redis = await startOwnRedis();
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 5, tpm: 100_000 }, env: { REDIS_URL: redis.url } });
    const first = await rawRequest(f.url, 'openai-chat');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('4');
    await first.text();
    await redis.kill();
    const started = Date.now();
    expect(await statusWithin(rawRequest(f.url, 'openai-chat'), 10_000)).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 30_000);

  it('Redis stalled (SIGSTOP, connections open but silent): a request is still answered within 10 s, not held forever', async () => {
    redis = await startOwnRedis();
    f = await startLimitsFixture({ tokenRateLimit: { rpm: 5 }, env: { REDIS_URL: redis.url } });
    const first = await rawRequest(f.url, 'openai-chat');
    expect(first.status).toBe(200);
    await first.text();
    redis.freeze();
    // Fail open (as admit-request.ts intends) or a 5xx: anything but a request that never ends.
    expect(await statusWithin(rawRequest(f.url, 'openai-chat'), 10_000)).not.toBe('no answer');
  }, 30_000);
});

describe.skipIf(serverUrls.redis === undefined)('Redis limiter: a request served while Redis was unreachable', () => {
  it('its estimate, never counted, is not refunded into the window at settlement (tpm is not exceeded afterwards)', async () => {
    // tpm 1000; each request: estimate 7 + 900 = 907, actual usage 10 + 1 = 11 (limits-fixture).
    redis = await startOwnRedis();
    f = await startLimitsFixture({ tokenRateLimit: { tpm: 1000 }, env: { REDIS_URL: redis.url } });
    const upstream = f.primary['openai-chat'];
    const held = (ms: number) => (request: any) => ({ ...defaultAnswer('openai-chat')(request), endDelayMs: ms });

    // X: admitted while Redis is down (its 907 never counted), answered 7 s later.
    await redis.kill();
    upstream.enqueue(held(7_000));
    const x = rawRequest(f.url, 'openai-chat', { maxTokens: 900 });
    for (let i = 0; i < 100 && upstream.requests.length < 1; i += 1) await sleep(50);
    expect(upstream.requests.length).toBe(1);
    await redis.start();
    await sleep(3_000); // ioredis reconnects (its back-off is at most 2 s)

    // Y: counted normally (907 in the window), still in flight when X settles.
    upstream.enqueue(held(8_000));
    const y = rawRequest(f.url, 'openai-chat', { maxTokens: 900 });
    for (let i = 0; i < 100 && upstream.requests.length < 2; i += 1) await sleep(50);
    expect(upstream.requests.length).toBe(2);

    const xAnswer = await x;
    expect(xAnswer.status).toBe(200);
    await xAnswer.text();
    await sleep(500); // X's settlement and its (batched) window correction

    // Y holds 907 of 1000: another 907 must not fit. X's correction (11 - 907) must not have emptied the window.
    const z = await rawRequest(f.url, 'openai-chat', { maxTokens: 900 });
    const zStatus = z.status;
    await z.text();
    await (await y).text();
    expect(zStatus, 'Z was admitted beside Y: X refunded an estimate that was never counted').toBe(429);
  }, 40_000);
});
