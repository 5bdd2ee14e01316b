import { afterEach, describe, expect, it } from 'vitest';
import { channel, chatWhole, okAnswer, okReply, startFixture, waitFor, type Fixture } from './routing-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const unauthorized = { status: 401, json: { error: { message: 'Incorrect API key provided: key-a***', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } };
const err = (status: number, message = `upstream ${status}`, code: string | null = null) => ({ status, json: { error: { message, type: 'server_error', param: null, code } } });

async function statusOf(f: Fixture, name: string) {
  const got = await f.admin('GET', `/channels/${f.idOf(name)}`);
  return got.json.data as { status: string; enabled: boolean; status_reason: string | null; auto_disable: boolean };
}

describe('auto-disable and cooling', () => {
  it('401 on the only key: auto_disabled, shown by the admin API with a reason', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
    fx.ups[0]!.enqueue(unauthorized);
    expect((await fx.chat()).status).toBe(200);
    await waitFor(async () => (await statusOf(fx!, 'a')).status !== 'enabled');
    const shown = await statusOf(fx, 'a');
    expect(shown).toMatchObject({ status: 'auto_disabled', enabled: false });
    expect(shown.status_reason).toContain('Incorrect API key');
  });

  it('auto_disable:false is respected on 401 (stays enabled)', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10, auto_disable: false }), channel('b', b!)] });
    fx.ups[0]!.enqueue(unauthorized);
    expect((await fx.chat()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await statusOf(fx, 'a')).toMatchObject({ status: 'enabled', enabled: true, status_reason: null });
  });

  it('auto_disable:false is respected on an out-of-credit 429', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10, auto_disable: false }), channel('b', b!)] });
    fx.ups[0]!.enqueue(err(429, 'You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota'));
    expect((await fx.chat()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await statusOf(fx, 'a')).status).toBe('enabled');
  });

  it('out-of-credit 429 (insufficient_quota) disables; a plain 429 or 5xx never does', async () => {
    fx = await startFixture({ upstreams: 3, channels: ([a, b, c]) => [channel('a', a!, { priority: 10 }), channel('b', b!, { priority: 10 }), channel('c', c!)] });
    fx.ups[0]!.setFallback(err(429, 'You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota'));
    fx.ups[1]!.setFallback(err(429, 'Rate limit reached for requests', 'rate_limit_exceeded'));
    for (let i = 0; i < 6; i += 1) await (await fx.chat()).arrayBuffer();
    await waitFor(async () => (await statusOf(fx!, 'a')).status !== 'enabled');
    expect((await statusOf(fx, 'a')).status).toBe('auto_disabled');
    expect((await statusOf(fx, 'b')).status).toBe('enabled');
  });

  it("Google's rate limit (429 RESOURCE_EXHAUSTED, 'You exceeded your current quota') never disables", async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
    const message = 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.';
    fx.ups[0]!.setFallback({ status: 429, json: { error: { code: 429, message, status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '33s' }] } } });
    for (let i = 0; i < 2; i += 1) expect((await fx.chat()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await statusOf(fx, 'a')).status).toBe('enabled');
  });

  it('three consecutive failures put a channel in cooldown: tried only when nothing else is left', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
    fx.ups[0]!.setFallback(err(500));
    for (let i = 0; i < 3; i += 1) expect((await fx.chat()).status).toBe(200);
    expect(fx.ups[0]!.requests).toHaveLength(3);
    fx.ups[0]!.setFallback(okReply());
    const fourth = await fx.chat();
    expect(fourth.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('b')));
    expect(fx.ups[0]!.requests).toHaveLength(3);
    // b failing now: a is the last resort and is tried
    fx.ups[1]!.enqueue(err(500));
    const fifth = await fx.chat();
    expect(fifth.status).toBe(200);
    expect(fifth.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('a')));
  });

  it('keys set aside while the channel has another usable key do not cool the channel: it still serves first with its good key', async () => {
    const good = 'key-a-good';
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('a', a!, { priority: 10, key: undefined, keys: ['key-a-bad-1', 'key-a-bad-2', 'key-a-bad-3', good] }), channel('b', b!)],
      fallback: [(req) => (req.headers.authorization === `Bearer ${good}` ? chatWhole(okAnswer) : unauthorized)],
    });
    // Three attempts (retry_times 2), three rejected keys: each set aside, the channel's good key left.
    await (await fx.chat()).arrayBuffer();
    expect(fx.ups[0]!.requests.map((request) => request.headers.authorization)).toEqual(['Bearer key-a-bad-1', 'Bearer key-a-bad-2', 'Bearer key-a-bad-3']);
    expect((await statusOf(fx, 'a')).status).toBe('enabled');
    const next = await fx.chat();
    expect(next.status).toBe(200);
    expect(next.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('a')));
    expect(fx.ups[0]!.requests.at(-1)?.headers.authorization).toBe(`Bearer ${good}`);
    expect(fx.ups[1]!.requests).toHaveLength(0);
  });

  it('the last key set aside still counts: a channel whose only other key fails is cooled as before', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10, key: undefined, keys: ['key-a-bad', 'key-a-2'], auto_disable: false }), channel('b', b!)] });
    // The bad key is set aside (not counted); the channel's last key, kept in service (auto_disable off), 401s and counts.
    fx.ups[0]!.setFallback(unauthorized);
    for (let i = 0; i < 4; i += 1) await (await fx.chat()).arrayBuffer();
    const seen = fx.ups[0]!.requests.length;
    fx.ups[0]!.setFallback(okReply());
    const next = await fx.chat();
    expect(next.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('b')));
    expect(fx.ups[0]!.requests).toHaveLength(seen);
  });

  it('non-consecutive failures (fail, ok, fail, fail) do not cool a channel', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
    fx.ups[0]!.enqueue(err(500), okReply(), err(500), err(500));
    for (let i = 0; i < 4; i += 1) await (await fx.chat()).arrayBuffer();
    const next = await fx.chat();
    expect(next.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('a')));
  });

  it('a 400 (request error) never counts toward cooldown', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
    fx.ups[0]!.enqueue(err(400), err(400), err(400), err(400));
    for (let i = 0; i < 4; i += 1) expect((await fx.chat()).status).toBe(400);
    const next = await fx.chat();
    expect(next.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('a')));
  });

  it('re-enabled by the admin API (PUT enabled:true with a new key) after a 401 auto-disable: the channel serves again', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
    fx.ups[0]!.enqueue(unauthorized);
    await (await fx.chat()).arrayBuffer();
    await waitFor(async () => (await statusOf(fx!, 'a')).status !== 'enabled');
    expect((await statusOf(fx, 'a')).status).toBe('auto_disabled');
    const put = await fx.admin('PUT', `/channels/${fx.idOf('a')}`, { enabled: true, key: 'key-a-new' });
    expect(put.status).toBe(200);
    expect(put.json.data.status).toBe('enabled');
    const response = await fx.chat();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('a')));
    expect(fx.ups[0]!.requests.at(-1)?.headers.authorization).toBe('Bearer key-a-new');
  });

  it('auto_disable:false channel whose only key got one (transient) 401 still serves later requests once the upstream recovers', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10, auto_disable: false }), channel('b', b!)] });
    fx.ups[0]!.enqueue(unauthorized);
    await (await fx.chat()).arrayBuffer();
    // Admin API shows it enabled and healthy; the upstream answers normally from now on.
    expect((await statusOf(fx, 'a')).status).toBe('enabled');
    const later = [];
    for (let i = 0; i < 3; i += 1) later.push((await fx.chat()).headers.get('x-relay-channel-id'));
    expect(later).toContain(String(fx.idOf('a')));
  });

  it('channel test re-enables an auto-disabled anthropic channel when its upstream is healthy', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('anth', a!, { type: 'anthropic', priority: 10 }), channel('b', b!)],
      fallback: [(req) => (req.path.startsWith('/v1/messages') ? (okReply('anthropic') as (r: typeof req) => any)(req) : { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: 'Not Found' } } }), okReply()],
    });
    fx.ups[0]!.enqueue({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: 'r' } });
    await (await fx.chat()).arrayBuffer();
    await waitFor(async () => (await statusOf(fx!, 'anth')).status !== 'enabled');
    expect((await statusOf(fx, 'anth')).status).toBe('auto_disabled');
    const tested = await fx.admin('POST', `/channels/${fx.idOf('anth')}/test`);
    expect(tested.json).toMatchObject({ success: true, data: { reenabled: true } });
    expect(fx.ups[0]!.requests.at(-1)?.path).toBe('/v1/messages');
  });

  it('channel test does not re-enable a channel an administrator disabled', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10, enabled: false }), channel('b', b!)] });
    const tested = await fx.admin('POST', `/channels/${fx.idOf('a')}/test`);
    expect(tested.json.success).toBe(true);
    expect((await statusOf(fx, 'a')).status).toBe('disabled');
  });
});

describe('cooldown length', () => {
  it('a cooled channel is preferred again once 30 s have passed', async () => {
    let clock = Date.now();
    const { startScriptedUpstream } = await import('../fakes/scripted-upstream.js');
    const { startTestGateway } = await import('../support/start-test-gateway.js');
    const { userKey } = await import('./routing-fixture.js');
    const a = await startScriptedUpstream({ fallback: err(500) });
    const b = await startScriptedUpstream({ fallback: okReply() });
    const gw = await startTestGateway({
      now: () => clock,
      config: {
        prices: { 'gpt-4o-mini': { input: 0.15, output: 0.6 } },
        channels: [channel('a', a.url, { priority: 10 }), channel('b', b.url)],
        users: [{ username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
        tokens: [{ name: 'k', user: 'alice', key: userKey, quota: 100_000_000, expires_at: 0, enabled: true }],
      },
    });
    const post = () => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }) });
    try {
      for (let i = 0; i < 3; i += 1) await (await post()).arrayBuffer();
      a.setFallback(okReply());
      clock += 29_000;
      expect((await post()).headers.get('x-relay-channel-id')).not.toBe(String(gw.gateway.services.catalog.snapshot.channels.find((c) => c.name === 'a')!.id));
      clock += 1_100;
      expect((await post()).headers.get('x-relay-channel-id')).toBe(String(gw.gateway.services.catalog.snapshot.channels.find((c) => c.name === 'a')!.id));
    } finally {
      await gw.close();
      await a.close();
      await b.close();
    }
  });
});

describe('re-enable of a single-channel model', () => {
  it('after PUT enabled:true with a fixed key, the only channel serves (not 401 "Every key ... rejected")', async () => {
    fx = await startFixture({ upstreams: 1, channels: ([a]) => [channel('a', a!)] });
    fx.ups[0]!.enqueue(unauthorized);
    await (await fx.chat()).arrayBuffer();
    await waitFor(async () => (await statusOf(fx!, 'a')).status !== 'enabled');
    await fx.admin('PUT', `/channels/${fx.idOf('a')}`, { enabled: true, key: 'key-a-new' });
    const response = await fx.chat();
    const text = await response.text();
    expect({ status: response.status, attempts: response.headers.get('x-relay-attempts'), text: text.slice(0, 80) }).toMatchObject({ status: 200 });
  });
});
