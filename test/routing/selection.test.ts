import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { adminUserKey, channel, okReply, startFixture, userKey, vipKey, type Fixture } from './routing-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function countServed(f: Fixture, n: number, key = userKey): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let i = 0; i < n; i += 1) {
    const response = await f.chat(key);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const id = response.headers.get('x-relay-channel-id') ?? 'none';
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

describe('channel selection', () => {
  it('always uses the highest priority while it is healthy', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!, { priority: 0, weight: 100 })] });
    const counts = await countServed(fx, 30);
    expect(counts.get(String(fx.idOf('a')))).toBe(30);
    expect(fx.ups[1]!.requests).toHaveLength(0);
  });

  it('weights 1:3 inside a priority give about 25% / 75% (400 samples, ±10 points = >4.6 sd)', async () => {
    fx = await startFixture({ upstreams: 3, channels: ([a, b, c]) => [channel('a', a!, { weight: 1 }), channel('b', b!, { weight: 3 }), channel('c', c!, { priority: -5, weight: 1000 })] });
    const counts = await countServed(fx, 400);
    const share = (counts.get(String(fx.idOf('b'))) ?? 0) / 400;
    expect(share).toBeGreaterThan(0.65);
    expect(share).toBeLessThan(0.85);
    expect(counts.get(String(fx.idOf('c')))).toBeUndefined();
  });

  it('all weights 0 = equal share (400 samples, ±15 points)', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { weight: 0 }), channel('b', b!, { weight: 0 })] });
    const counts = await countServed(fx, 400);
    const share = (counts.get(String(fx.idOf('a'))) ?? 0) / 400;
    expect(share).toBeGreaterThan(0.35);
    expect(share).toBeLessThan(0.65);
  });

  it('never chooses a disabled channel, neither first nor on retry', async () => {
    fx = await startFixture({
      upstreams: 3,
      channels: ([a, b, c]) => [channel('off', a!, { priority: 100, enabled: false }), channel('b', b!, { priority: 10 }), channel('c', c!, { priority: 0 })],
      fallback: [okReply(), { status: 500, json: { error: { message: 'boom', type: 'server_error' } } }, okReply()],
    });
    for (let i = 0; i < 10; i += 1) {
      const response = await fx.chat();
      expect(response.status).toBe(200);
      expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('c')));
    }
    expect(fx.ups[0]!.requests).toHaveLength(0);
  });

  it('a disabled-by-admin channel (PUT enabled:false) is no longer chosen', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
    const put = await fx.admin('PUT', `/channels/${fx.idOf('a')}`, { enabled: false });
    expect(put.status).toBe(200);
    const response = await fx.chat();
    expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('b')));
    expect(fx.ups[0]!.requests).toHaveLength(0);
  });

  it('groups: a vip-only channel serves vip callers only; the default caller gets 503 for a model only vip has', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('vip', a!, { groups: ['vip'], priority: 10, models: ['gpt-4o-mini', 'claude-x'] }), channel('def', b!, { groups: ['default'] })],
    });
    const vip = await fx.chat(vipKey);
    expect(vip.status).toBe(200);
    expect(vip.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('vip')));
    const def = await fx.chat(userKey);
    expect(def.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('def')));
    const denied = await fx.chat(userKey, { model: 'claude-x' });
    expect(denied.status).toBe(503);
    expect(((await denied.json()) as any).error.code).toBe('model_not_found');
    // vip's only channel fails: it must not fall back to a default-group channel
    fx.ups[0]!.enqueue({ status: 500, json: { error: { message: 'boom' } } });
    const failed = await fx.chat(vipKey);
    expect(failed.status).toBe(500);
    expect(fx.ups[1]!.requests).toHaveLength(1);
  });

  it('model_mapping: chains followed, upstream receives the mapped name, client sees its own name', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!, { models: ['claude-x'], model_mapping: { 'claude-x': 'mid', mid: 'gpt-real' } })],
    });
    const response = await fx.chat(userKey, { model: 'claude-x' });
    expect(response.status).toBe(200);
    expect((fx.ups[0]!.requests[0]!.body as any).model).toBe('gpt-real');
  });

  it('model_mapping loop on the preferred channel: request still served by the next channel', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('loop', a!, { priority: 10, model_mapping: { 'gpt-4o-mini': 'x', x: 'gpt-4o-mini' } }), channel('b', b!)],
    });
    const response = await fx.chat();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('b')));
    expect(fx.ups[0]!.requests).toHaveLength(0);
  });

  it('pinned sk-key-channelId (admin): that channel only, no failover', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!, { groups: ['vip'] })] });
    const pinned = await fx.chat(`${adminUserKey}-${fx.idOf('b')}`);
    expect(pinned.status).toBe(200);
    expect(pinned.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('b')));
    fx.ups[1]!.enqueue({ status: 503, json: { error: { message: 'down' } } });
    const failed = await fx.chat(`${adminUserKey}-${fx.idOf('b')}`);
    expect(failed.status).toBe(503);
    expect(fx.ups[0]!.requests).toHaveLength(0);
    const forbidden = await fx.chat(`${userKey}-${fx.idOf('b')}`);
    expect(forbidden.status).toBe(403);
  });

  it('pinned to a disabled channel is not served by it', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!), channel('off', b!, { enabled: false })] });
    const response = await fx.chat(`${adminUserKey}-${fx.idOf('off')}`);
    expect(response.status).toBe(503);
    expect(fx.ups[1]!.requests).toHaveLength(0);
    expect(fx.ups[0]!.requests).toHaveLength(0);
  });

  it('channel types vs endpoint: embeddings never reach an anthropic channel; chat to an anthropic channel speaks /v1/messages', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [
        channel('anth', a!, { type: 'anthropic', priority: 10, models: ['gpt-4o-mini', 'text-embedding-3-small'] }),
        channel('oai', b!, { models: ['text-embedding-3-small'] }),
      ],
      fallback: [okReply('anthropic'), { json: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 2, total_tokens: 2 } } }],
    });
    const emb = await fetch(`${fx.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'text-embedding-3-small', input: 'hello' }) });
    expect(emb.status).toBe(200);
    expect(emb.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('oai')));
    expect(fx.ups[0]!.requests).toHaveLength(0);
    const chat = await fx.chat();
    expect(chat.status).toBe(200);
    expect(fx.ups[0]!.requests[0]!.path).toBe('/v1/messages');
  });

  it('n > 1 and legacy functions reach only a Chat channel of a mixed model, whatever the priorities; with none, 400 naming the field', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('anth', a!, { type: 'anthropic', priority: 10, models: ['gpt-4o-mini', 'claude-x'] }), channel('oai', b!, { priority: 0 })],
      fallback: [okReply('anthropic'), okReply()],
    });
    const sdk = new OpenAI({ apiKey: userKey, baseURL: `${fx.url}/v1`, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    for (let index = 0; index < 4; index += 1) {
      const { response } = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages, n: 2 }).withResponse();
      expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('oai')));
    }
    const { response: legacy } = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages, functions: [{ name: 'f', parameters: { type: 'object' } }] }).withResponse();
    expect(legacy.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('oai')));
    expect(fx.ups[0]!.requests).toHaveLength(0);
    // A plain request still goes by priority.
    await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(fx.ups[0]!.requests).toHaveLength(1);
    const refused = await sdk.chat.completions.create({ model: 'claude-x', messages, n: 2 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('n');
    expect(fx.ups[0]!.requests).toHaveLength(1);
  });

  it('n > 1 goes to the Chat channel of a model, not to an OpenAI channel set to the Responses API at a higher priority (from the Chat-parameters audit)', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('resp', a!, { priority: 10, settings: { api: 'responses' } }), channel('chat', b!, { priority: 0 })],
      fallback: [okReply('openai-responses'), okReply()],
    });
    const sdk = new OpenAI({ apiKey: userKey, baseURL: `${fx.url}/v1`, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    for (let index = 0; index < 4; index += 1) {
      const { response } = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages, n: 2 }).withResponse();
      expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('chat')));
    }
    const { response: legacy } = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages, functions: [{ name: 'f', parameters: { type: 'object' } }] }).withResponse();
    expect(legacy.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('chat')));
    expect(fx.ups[0]!.requests).toHaveLength(0);
    expect(fx.ups[1]!.requests.map((request) => request.path)).toEqual(Array(5).fill('/v1/chat/completions'));
    // A plain request still goes by priority, to the Responses channel.
    await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(fx.ups[0]!.requests.map((request) => request.path)).toEqual(['/v1/responses']);
  });
});
