/**
 * From the limits audit: a realtime session is admitted through the same tokens-per-minute window as every
 * relay request (admit-request.ts); its first settlement takes the admission's estimate back and each
 * response's tokens count in the window of the minute that response finished in — to 0 after a failed
 * connect. A clock the test moves puts a session's responses in three windows: the gateway's `now` for the
 * in-memory limiter, and — with REDIS_URL, where the windows are the keys' TTLs on the Redis server — the
 * TTLs of a redis-server of the test's own as well (run where the Redis suites run: RELAY_TEST_REDIS_URL).
 */
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRedisKeyPrefix } from '../../src/limits/redis-rate-limiter.js';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import { startOwnRedis, type OwnRedis } from '../support/own-redis.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { serverUrls } from '../support/test-databases.js';

const price = { input: 4, output: 16 };
const holdInputTokens = 1_000;
const tpm = 100_000;
const keyA = `sk-${'a'.repeat(48)}`;
const keyB = `sk-${'b'.repeat(48)}`;

const keyC = `sk-${'c'.repeat(48)}`;

const limiters = [
  { limiter: 'in-memory', available: true },
  { limiter: 'Redis', available: serverUrls.redis !== undefined },
];

describe.each(limiters)('audit: realtime sessions and the tokens-per-minute window ($limiter limiter)', ({ limiter, available }) => {
  let upstream: FakeRealtimeUpstream;
  let gateway: TestGateway;
  let redis: OwnRedis | undefined;
  let redisClient: Redis | undefined;
  /** How far the gateway's clock is ahead of the real one. */
  let clockAheadMs = 0;

  /** Moves time on by `ms`: the gateway's clock, and Redis's — every window's TTL shortened, one that ends by then gone. */
  async function moveClock(ms: number): Promise<void> {
    clockAheadMs += ms;
    if (redisClient === undefined) return;
    // What was counted before the move lands first (the limiter sends its adjustments a turn later).
    const limiter = gateway.gateway.services.relay.rateLimiter;
    if ('drain' in limiter && typeof limiter.drain === 'function') await limiter.drain();
    for (const key of await redisClient.keys('*')) {
      const ttl = await redisClient.pttl(key);
      if (ttl > ms) await redisClient.pexpire(key, ttl - ms);
      else if (ttl >= 0) await redisClient.del(key);
    }
  }

  beforeAll(async () => {
    if (!available) return;
    if (limiter === 'Redis') {
      redis = await startOwnRedis();
      redisClient = new Redis(redis.url);
    }
    upstream = await startFakeRealtimeUpstream({ expectedKeys: ['sk-up-realtime'] });
    gateway = await startTestGateway({
      dialect: 'sqlite',
      now: () => Date.now() + clockAheadMs,
      ...(redis === undefined ? {} : { env: { REDIS_URL: redis.url } }),
      config: {
        retry_times: 0,
        realtime_hold_input_tokens: holdInputTokens,
        prices: { 'gpt-realtime': price },
        channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: 'sk-up-realtime', priority: 0, model_mapping: {} }],
        users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
        tokens: [
          { name: 'key-a', user: 'u', key: keyA, quota: 1_000_000_000_000, expires_at: 0, enabled: true, rate_limit: { tpm } },
          { name: 'key-b', user: 'u', key: keyB, quota: 1_000_000_000_000, expires_at: 0, enabled: true, rate_limit: { tpm } },
          { name: 'key-c', user: 'u', key: keyC, quota: 1_000_000_000_000, expires_at: 0, enabled: true, rate_limit: { tpm } },
        ],
      },
    });
  }, 30_000);
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await upstream.close();
    await redisClient?.quit();
    await redis?.close();
  }, 30_000);

  async function tokensUsedInWindow(name: string): Promise<number> {
    const services = gateway.gateway.services;
    const token = await services.database.db.selectFrom('tokens').select('id').where('name', '=', name).executeTakeFirstOrThrow();
    // A zero-cost check reads the window without adding to it.
    const decision = await services.relay.rateLimiter.consume([{ key: `token:${token.id}:tpm`, limit: tpm, windowSeconds: 60, cost: 0, kind: 'tokens' }], services.relay.now());
    const used = tpm - (decision.states[0]?.remaining ?? 0);
    // With Redis the window is the server's key (the consume sent every adjustment before it): the same count there.
    if (redisClient !== undefined) expect(Number((await redisClient.get(`${defaultRedisKeyPrefix}token:${token.id}:tpm`)) ?? 0)).toBe(used);
    return used;
  }

  function open(key: string): WebSocket {
    return new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${key}` } });
  }

  it.skipIf(!available)('a refused upstream upgrade (nothing relayed) gives its token estimate back to the tpm window', async () => {
    upstream.refuseNextUpgrade(503);
    const socket = open(keyA);
    await new Promise<void>((resolve) => {
      socket.once('error', () => resolve());
      socket.once('unexpected-response', () => resolve());
      socket.once('close', () => resolve());
    });
    socket.terminate();
    await gateway.settled();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Text requests that produced nothing give the estimate back (test/rate-limits/tpm-settlement); so must this.
    expect(await tokensUsedInWindow('key-a')).toBe(0);
  });

  it.skipIf(!available)('a session that ran three responses leaves the tpm window at the tokens actually used, not the admission estimate', async () => {
    const socket = open(keyB);
    let done = 0;
    socket.on('message', (data: Buffer) => {
      if ((JSON.parse(data.toString('utf8')) as { type: string }).type === 'response.done') done += 1;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      socket.once('message', () => resolve());
      socket.once('error', reject);
    });
    for (let index = 0; index < 3; index += 1) {
      socket.send(JSON.stringify({ type: 'response.create' }));
      await expect.poll(() => done, { timeout: 5_000 }).toBe(index + 1);
    }
    socket.close();
    await closed;
    await gateway.settled();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The fake's default response: 120 input and 30 output tokens, three times.
    expect(await tokensUsedInWindow('key-b')).toBe(3 * 150);
  });

  it.skipIf(!available)('counts each response of a long session in the window of the minute it finished in, not the whole session at its end', async () => {
    const socket = open(keyC);
    let done = 0;
    socket.on('message', (data: Buffer) => {
      if ((JSON.parse(data.toString('utf8')) as { type: string }).type === 'response.done') done += 1;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      socket.once('message', () => resolve());
      socket.once('error', reject);
    });
    const respond = async (usage: { input_tokens: number; output_tokens: number }) => {
      upstream.setNextUsage(usage);
      const before = done;
      socket.send(JSON.stringify({ type: 'response.create' }));
      await expect.poll(() => done, { timeout: 5_000 }).toBe(before + 1);
      await gateway.settled();
    };
    try {
      // Minute 1: the admission's estimate gives way to the first response's tokens.
      await respond({ input_tokens: 10_000, output_tokens: 30 });
      expect(await tokensUsedInWindow('key-c')).toBe(10_030);
      // Minute 2 (the first window has ended): the second response counts here, and only it.
      await moveClock(61_000);
      await respond({ input_tokens: 20_000, output_tokens: 30 });
      expect(await tokensUsedInWindow('key-c')).toBe(20_030);
      // Minute 3: the third; the session ends in this minute and adds nothing more to it.
      await moveClock(61_000);
      await respond({ input_tokens: 100, output_tokens: 50 });
      socket.close();
      await closed;
      await gateway.settled();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await tokensUsedInWindow('key-c')).toBe(150);
    } finally {
      clockAheadMs = 0;
    }
  });
});
