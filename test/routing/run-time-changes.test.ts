/**
 * Routing and billing follow what the admin API changes, at once (from the routing audit): a mapped model
 * billed at the name asked for, a token's own group and its ratio, group ratios, token limits, expiry and
 * status, channel models, groups and status, user status and group; and priority tiers before weights.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { adminUserKey, channel, startFixture, userKey, vipKey, type Fixture } from '../routing/routing-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const bigPrices = {
  'gpt-4o-mini': { input: 100, output: 200 },
  'alias-cheap': { input: 100, output: 200 },
  premium: { input: 1000, output: 2000 },
  'claude-x': { input: 100, output: 200 },
};
// 10 input + 5 output tokens at (100, 200) per 1M × 500000 quota per unit = 1000 quota
const baseCharge = 1000;

async function lastLog(f: Fixture): Promise<any> {
  await f.gateway.settled();
  const logs = await f.admin('GET', '/logs?page_size=5');
  return logs.json.data.items[0];
}

async function listIds(f: Fixture, key: string): Promise<string[]> {
  const client = new OpenAI({ apiKey: key, baseURL: `${f.url}/v1`, maxRetries: 0 });
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  return ids;
}

describe('billing by group and mapping', () => {
  it('a mapped model is billed at the requested name’s price, log keeps both names', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!, { models: ['alias-cheap'], model_mapping: { 'alias-cheap': 'premium' } })],
      config: { prices: bigPrices } as any,
    });
    const response = await fx.chat(userKey, { model: 'alias-cheap' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    console.log('client sees model', body.model);
    expect((fx.ups[0]!.requests[0]!.body as any).model).toBe('premium');
    const row = await lastLog(fx);
    expect(row.model).toBe('alias-cheap');
    expect(row.upstream_model).toBe('premium');
    expect(row.quota).toBe(baseCharge);
  });

  it('a root token with group vip (ratio 3) reaches vip channels and is billed ×3', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('vip', a!, { groups: ['vip'], models: ['claude-x'] }), channel('def', b!)],
      config: {
        prices: bigPrices,
        groups: { default: 1, vip: 3 },
        // Only root's keys may name a group other than their user's (an admin's are bound as a user's).
        users: [
          { username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true },
          { username: 'boss', role: 'root', group: 'default', quota: 1_000_000_000, enabled: true },
          { username: 'vic', role: 'user', group: 'vip', quota: 1_000_000_000, enabled: true },
        ],
        tokens: [
          { name: 'alice-key', user: 'alice', key: userKey, quota: 100_000_000, expires_at: 0, enabled: true },
          { name: 'boss-vip', user: 'boss', key: adminUserKey, group: 'vip', quota: 100_000_000, expires_at: 0, enabled: true },
          { name: 'vic-key', user: 'vic', key: vipKey, quota: 100_000_000, expires_at: 0, enabled: true },
        ],
      } as any,
    });
    const ok = await fx.chat(adminUserKey, { model: 'claude-x' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('vip')));
    expect((await lastLog(fx)).quota).toBe(baseCharge * 3);
    // the vip token must not reach default-only models
    const denied = await fx.chat(adminUserKey, { model: 'gpt-4o-mini' });
    expect(denied.status).toBe(503);
    expect((await listIds(fx, adminUserKey)).sort()).toEqual(['claude-x']);
  });

  it('a group ratio changed through the admin API applies to the very next request', async () => {
    fx = await startFixture({ upstreams: 1, channels: ([a]) => [channel('a', a!)], config: { prices: bigPrices } as any });
    expect((await fx.chat()).status).toBe(200);
    expect((await lastLog(fx)).quota).toBe(baseCharge);
    const put = await fx.admin('PUT', '/groups/default', { ratio: 2.5 });
    expect(put.status).toBe(200);
    expect((await fx.chat()).status).toBe(200);
    expect((await lastLog(fx)).quota).toBe(baseCharge * 2.5);
  });
});

describe('run-time changes through the admin API', () => {
  it('token model_limits, disable and expiry take effect at once (chat and list)', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!, { models: ['gpt-4o-mini', 'claude-x'] })],
      config: { prices: bigPrices } as any,
    });
    const tokens = await fx.admin('GET', '/tokens?page_size=50');
    const alice = tokens.json.data.items.find((t: any) => t.name === 'alice-key');
    expect((await listIds(fx, userKey)).sort()).toEqual(['claude-x', 'gpt-4o-mini']);
    expect((await fx.admin('PUT', `/tokens/${alice.id}`, { model_limits: ['claude-x'] })).status).toBe(200);
    expect((await fx.chat()).status).toBe(403);
    expect((await fx.chat(userKey, { model: 'claude-x' })).status).toBe(200);
    expect(await listIds(fx, userKey)).toEqual(['claude-x']);
    expect((await fx.admin('PUT', `/tokens/${alice.id}`, { model_limits: null })).status).toBe(200);
    expect((await fx.chat()).status).toBe(200);
    expect((await fx.admin('PUT', `/tokens/${alice.id}`, { enabled: false })).status).toBe(200);
    expect((await fx.chat()).status).toBe(401);
    expect((await fx.admin('PUT', `/tokens/${alice.id}`, { enabled: true, expires_at: Math.floor(Date.now() / 1000) - 10 })).status).toBe(200);
    expect((await fx.chat()).status).toBe(401);
  });

  it('channel models / groups / status changed at run time: routing and lists follow at once', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('a', a!, { models: ['gpt-4o-mini', 'claude-x'], priority: 10 }), channel('b', b!, { models: ['gpt-4o-mini'] })],
      config: { prices: bigPrices } as any,
    });
    // warm the candidate cache
    expect((await fx.chat(userKey, { model: 'claude-x' })).status).toBe(200);
    expect((await fx.chat()).headers.get('x-relay-channel-id')).toBe(String(fx.idOf('a')));
    expect((await fx.admin('PUT', `/channels/${fx.idOf('a')}`, { models: ['gpt-4o-mini'] })).status).toBe(200);
    const gone = await fx.chat(userKey, { model: 'claude-x' });
    expect(gone.status).toBe(400);
    expect(await listIds(fx, userKey)).toEqual(['gpt-4o-mini']);
    expect((await fx.admin('PUT', `/channels/${fx.idOf('a')}`, { groups: ['vip'] })).status).toBe(200);
    const viaB = await fx.chat();
    expect(viaB.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('b')));
    expect((await fx.admin('PUT', `/channels/${fx.idOf('b')}`, { enabled: false })).status).toBe(200);
    expect((await fx.chat()).status).toBe(503);
    expect(await listIds(fx, userKey)).toEqual([]);
    expect(await listIds(fx, vipKey)).toEqual(['gpt-4o-mini']);
  });

  it('a disabled user is refused at once; a user moved to another group routes by the new group', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('vip', a!, { groups: ['vip'] }), channel('def', b!)],
      config: { prices: bigPrices } as any,
    });
    const users = await fx.admin('GET', '/users?page_size=50');
    const alice = users.json.data.items.find((u: any) => u.username === 'alice');
    expect((await fx.admin('PUT', `/users/${alice.id}`, { group: 'vip' })).status).toBe(200);
    const moved = await fx.chat();
    expect(moved.status).toBe(200);
    expect(moved.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('vip')));
    expect((await fx.admin('PUT', `/users/${alice.id}`, { enabled: false })).status).toBe(200);
    expect((await fx.chat()).status).toBe(403);
  });
});

describe('priority tiers', () => {
  it('a failing channel of the top tier moves to the other top-tier channel, never the lower tier', async () => {
    fx = await startFixture({
      upstreams: 3,
      channels: ([a, b, c]) => [channel('a', a!, { priority: 10 }), channel('b', b!, { priority: 10 }), channel('c', c!, { priority: 0, weight: 1000 })],
      fallback: [{ status: 500, json: { error: { message: 'boom', type: 'server_error' } } }, undefined as any, undefined as any],
      config: { prices: bigPrices } as any,
    });
    for (let i = 0; i < 20; i += 1) {
      const response = await fx.chat();
      expect(response.status).toBe(200);
      expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('b')));
    }
    expect(fx.ups[2]!.requests).toHaveLength(0);
  });
});
