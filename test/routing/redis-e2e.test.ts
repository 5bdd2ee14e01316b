import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { serverUrls } from '../support/test-databases.js';
import { channel, startFixture, userKey, type Fixture } from './routing-fixture.js';

const limitedKey = `sk-${'r'.repeat(48)}`;
const run = `${Date.now() % 100000}`;

let fx: Fixture | undefined;
let second: TestGateway | undefined;
afterEach(async () => {
  await second?.close().catch(() => undefined);
  await fx?.close();
  fx = undefined;
  second = undefined;
});

describe.skipIf(serverUrls.redis === undefined)('rate limits with REDIS_URL', () => {
  it('two replicas share one token rpm window; tpm is corrected after settlement', async () => {
    const redisUrl = `${serverUrls.redis!.replace(/\/\d*$/, '')}/13`;
    const tokenName = `lim-${run}`;
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!)],
      env: { REDIS_URL: redisUrl },
      config: {
        tokens: [
          { name: 'alice-key', user: 'alice', key: userKey, quota: 100_000_000, expires_at: 0, enabled: true, rate_limit: { tpm: 1000 } },
          { name: tokenName, user: 'alice', key: limitedKey, quota: 100_000_000, expires_at: 0, enabled: true, rate_limit: { rpm: 3 } },
        ],
      },
    });
    // Keys are token ids: flush this DB's leftovers of an earlier run of this file.
    const { Redis } = await import('ioredis');
    const redis = new Redis(redisUrl);
    const stale = await redis.keys('unified-relay:rate:*');
    if (stale.length > 0) await redis.del(...stale);
    await redis.quit();

    second = await startTestGateway({ databaseUrl: fx.gateway.databaseUrl, env: { REDIS_URL: redisUrl }, config: { channels: [] } as never });
    const post = (base: string, key: string, body: Record<string, unknown> = {}) =>
      fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20, ...body }) });
    expect((await post(fx.url, limitedKey)).status).toBe(200);
    expect((await post(second.url, limitedKey)).status).toBe(200);
    expect((await post(fx.url, limitedKey)).status).toBe(200);
    expect((await post(second.url, limitedKey)).status).toBe(429);
    expect((await post(fx.url, limitedKey)).status).toBe(429);

    const first = await post(fx.url, userKey, { max_tokens: 5000 });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    await fx.gateway.settled();
    const next = await post(fx.url, userKey, { max_tokens: 20 });
    expect(next.status).toBe(200);
    expect(Number(next.headers.get('x-ratelimit-remaining-tokens'))).toBeGreaterThanOrEqual(1000 - 15 - 60);
  });
});
