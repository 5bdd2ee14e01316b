/**
 * From the inflight audit: with Redis carrying catalog changes and SYNC_FREQUENCY=0, a replica whose
 * subscriber connection dropped while a change was published never saw it — Redis pub/sub keeps nothing
 * for a subscriber that is away, and nothing reloaded the catalog then. A token disabled through A kept
 * spending on B until some later change. A subscriber that is back now has its catalog check the stored
 * version, as the SYNC_FREQUENCY poll does.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { admin, chatStatus, findId, startReplica, upstreamKey, within } from './replica-fixture.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { createTestDatabase, serverUrls } from '../support/test-databases.js';

/** A logical database no other test file names, so the kill below touches only this file's subscribers. */
const logicalDb = 12;
function redisUrl(): string {
  const url = new URL(serverUrls.redis!);
  url.pathname = `/${logicalDb}`;
  return url.toString();
}

describe.skipIf(serverUrls.redis === undefined)('catalog sync through Redis when a subscriber reconnects', { timeout: 30_000 }, () => {
  let a: TestGateway;
  let b: TestGateway;
  let upstream: FakeOpenaiUpstream;
  let database: { url: string; drop(): Promise<void> };
  let control: Redis;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    const env = { SYNC_FREQUENCY: '0', REDIS_URL: redisUrl() };
    a = await startReplica(database.url, upstream.url, env);
    b = await startReplica(database.url, upstream.url, env);
    control = new Redis(serverUrls.redis!);
    expect(await chatStatus(b.url)).toBe(200);
  });
  afterAll(async () => {
    control?.disconnect();
    await a?.gateway.close();
    await b?.gateway.close();
    await upstream?.close();
    await database?.drop();
  });

  it('a token disabled through A while B was briefly disconnected from Redis is refused by B once B is back', async () => {
    // Drop this file's subscriber connections (db 14, subscribed); ioredis reconnects within ~50 ms.
    const clients = String(await control.call('client', 'list')).split('\n').filter((line) => line.includes(` db=${logicalDb} `) && /\bsub=[1-9]/.test(line));
    expect(clients.length).toBeGreaterThan(0);
    for (const line of clients) await control.call('client', 'kill', 'id', /id=(\d+)/.exec(line)![1]!);
    const id = await findId(a.url, 'tokens', 'carol-key');
    expect((await admin(a.url, 'PUT', `/tokens/${id}`, { enabled: false })).status).toBe(200);
    expect(await chatStatus(a.url)).toBe(401);
    // B's subscriber is back well within this time.
    await sleep(1500);
    const resubscribed = String(await control.call('client', 'list')).split('\n').filter((line) => line.includes(` db=${logicalDb} `) && /\bsub=[1-9]/.test(line));
    expect(resubscribed.length).toBe(clients.length);
    // B refuses the disabled key: its subscriber, back, had the catalog read the version it missed.
    expect(await within(3000, async () => (await chatStatus(b.url)) === 401)).toBeGreaterThanOrEqual(0);
  });
});
