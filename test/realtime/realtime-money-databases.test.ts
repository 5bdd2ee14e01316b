/**
 * Realtime money on every database (docs/behaviour.md "Realtime"): each response settled at its usage and
 * the next hold taken; a key that runs out mid-session is charged what it used and never below zero;
 * concurrent sessions on a small key hold no more than it has. Raw `ws` clients (the SDK is exercised in
 * realtime.test.ts) against the fake Realtime upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';

const quotaPerUnit = 500_000;
const price = { input: 4, output: 16, cache_read: 0.4 };
const hold = (16_384 * price.input + 4_096 * price.output) * (quotaPerUnit / 1_000_000);
const defaultCharge = ((120 - 20) * price.input + 20 * price.cache_read + 30 * price.output) * (quotaPerUnit / 1_000_000);
const keys = { main: `sk-${'m'.repeat(48)}`, tight: `sk-${'n'.repeat(48)}`, twoHolds: `sk-${'o'.repeat(48)}` };

describe.each(allDialects)('realtime money on $dialect', ({ dialect, available }) => {
  let upstream: FakeRealtimeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    if (!available) return;
    upstream = await startFakeRealtimeUpstream({ expectedKeys: ['sk-up-realtime'] });
    gateway = await startTestGateway({
      dialect,
      config: {
        prices: { 'gpt-realtime': price },
        channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: 'sk-up-realtime', priority: 0, model_mapping: {} }],
        users: [{ username: 'speaker', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
        tokens: [
          { name: 'main', user: 'speaker', key: keys.main, quota: 1_000_000_000_000, expires_at: 0, enabled: true },
          { name: 'tight', user: 'speaker', key: keys.tight, quota: hold + defaultCharge - 1, expires_at: 0, enabled: true },
          { name: 'two-holds', user: 'speaker', key: keys.twoHolds, quota: 2 * hold, expires_at: 0, enabled: true },
        ],
      },
    });
  });
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await upstream.close();
  });

  const db = () => gateway.gateway.services.database.db;
  const token = async (name: string) => {
    await gateway.settled();
    const row = await db().selectFrom('tokens').select(['used_quota', 'remain_quota']).where('name', '=', name).executeTakeFirstOrThrow();
    return { used: Number(row.used_quota), remain: Number(row.remain_quota) };
  };
  const openHolds = async () => (await db().selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute()).length;

  /** A session, open past `session.created`, or the HTTP status its upgrade was refused with. */
  function connect(key: string): Promise<{ socket: WebSocket; types: string[]; closed: Promise<number> } | number> {
    return new Promise((resolve) => {
      const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${key}` } });
      const types: string[] = [];
      const closed = new Promise<number>((done) => socket.once('close', done));
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('error', () => undefined);
      socket.on('message', (data: Buffer) => {
        types.push((JSON.parse(data.toString('utf8')) as { type: string }).type);
        if (types.length === 1) resolve({ socket, types, closed });
      });
    });
  }

  it.skipIf(!available)('settles each response at its usage and leaves nothing held after the session', async () => {
    const before = await token('main');
    const session = await connect(keys.main);
    if (typeof session === 'number') throw new Error(`refused: ${session}`);
    for (let response = 1; response <= 3; response += 1) {
      session.socket.send(JSON.stringify({ type: 'response.create' }));
      await expect.poll(() => session.types.filter((type) => type === 'response.done').length).toBe(response);
    }
    session.socket.close();
    await session.closed;
    await expect.poll(() => openHolds()).toBe(0);
    const after = await token('main');
    expect(after.used - before.used).toBe(3 * defaultCharge);
    expect(before.remain - after.remain).toBe(3 * defaultCharge);
  });

  it.skipIf(!available)('a key that runs out with two responses under way pays what it had, never below zero', async () => {
    const session = await connect(keys.tight);
    if (typeof session === 'number') throw new Error(`refused: ${session}`);
    session.socket.send(JSON.stringify({ type: 'response.create' }));
    session.socket.send(JSON.stringify({ type: 'response.create' }));
    expect(await session.closed).toBe(1008);
    await expect.poll(() => openHolds()).toBe(0);
    const tight = await token('tight');
    expect(tight.remain).toBeGreaterThanOrEqual(0);
    // Both responses were billed (the second at what the balance still covered).
    expect(tight.used).toBe(Math.min(2 * defaultCharge, hold + defaultCharge - 1));
  });

  it.skipIf(!available)('concurrent sessions on a key that holds two are two; the others are refused 402', async () => {
    const sessions = await Promise.all(Array.from({ length: 5 }, () => connect(keys.twoHolds)));
    const open = sessions.filter((session) => typeof session !== 'number');
    expect(open).toHaveLength(2);
    expect(sessions.filter((session) => session === 402)).toHaveLength(3);
    for (const session of open) {
      session.socket.close();
      await session.closed;
    }
    await expect.poll(() => openHolds()).toBe(0);
    expect((await token('two-holds')).used).toBe(0);
  });
});
