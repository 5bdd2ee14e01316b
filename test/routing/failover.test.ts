import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { chatStream } from '../fakes/scripted-vendor-wire.js';
import { adminUserKey, channel, okAnswer, okReply, startFixture, userKey, waitFor, type Fixture } from './routing-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const err = (status: number, message = `upstream ${status}`) => ({ status, json: { error: { message, type: 'server_error', param: null, code: null } } });

describe('failover rules', () => {
  for (const status of [408, 429, 500, 502, 503, 504, 529]) {
    it(`retries on another channel after ${status}`, async () => {
      fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
      fx.ups[0]!.enqueue(err(status));
      const response = await fx.chat();
      expect(response.status).toBe(200);
      expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('b')));
      expect(response.headers.get('x-relay-attempts')).toBe('2');
    });
  }

  for (const status of [400, 404, 409, 413, 422]) {
    it(`sends ${status} straight back with the upstream body, no retry`, async () => {
      fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
      const body = { error: { message: `bad ${status}`, type: 'invalid_request_error', param: 'x', code: 'bad' } };
      fx.ups[0]!.enqueue({ status, json: body });
      const response = await fx.chat();
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual(body);
      expect(fx.ups[1]!.requests).toHaveLength(0);
    });
  }

  it('retry_times: 0 → exactly one attempt', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)], config: { retry_times: 0 } });
    fx.ups[0]!.enqueue(err(500));
    const response = await fx.chat();
    expect(response.status).toBe(500);
    expect(response.headers.get('x-relay-attempts')).toBe('1');
    expect(fx.ups[1]!.requests).toHaveLength(0);
  });

  it('default retry_times (2): at most 3 attempts, all on different channels, falling through priorities', async () => {
    fx = await startFixture({
      upstreams: 5,
      channels: (u) => u.map((url, i) => channel(`c${i}`, url, { priority: 10 - i })),
      fallback: [err(500), err(502), err(503), err(500), err(500)],
    });
    const response = await fx.chat();
    expect(response.status).toBe(503);
    expect(response.headers.get('x-relay-attempts')).toBe('3');
    expect(fx.ups.map((u) => u.requests.length)).toEqual([1, 1, 1, 0, 0]);
  });

  it('never the same channel twice: one channel, retry_times 5 → one upstream request', async () => {
    fx = await startFixture({ upstreams: 1, channels: ([a]) => [channel('a', a!)], config: { retry_times: 5 }, fallback: [err(500)] });
    const response = await fx.chat();
    expect(response.status).toBe(500);
    expect(fx.ups[0]!.requests).toHaveLength(1);
  });

  it('stream: a 200 that closes before its first event is retried on another channel', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
    fx.ups[0]!.enqueue({ status: 200, sse: [], ending: 'reset' });
    fx.ups[1]!.enqueue(chatStream(okAnswer));
    const response = await fx.chat(userKey, { stream: true });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('ok');
    expect(text).toContain('[DONE]');
    expect(fx.ups[1]!.requests).toHaveLength(1);
  });

  it('stream: a cut after the first event is not retried', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
    const full = chatStream(okAnswer);
    fx.ups[0]!.enqueue({ ...full, sse: full.sse!.slice(0, 2), ending: 'reset' });
    const response = await fx.chat(userKey, { stream: true });
    expect(response.status).toBe(200);
    await response.text().catch(() => '');
    expect(fx.ups[1]!.requests).toHaveLength(0);
  });

  it('all fail by connection → 502 (OpenAI envelope, x-relay-attempts, x-request-id)', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)], fallback: [{ ending: 'reset' }, { ending: 'reset' }] });
    const response = await fx.chat();
    expect(response.status).toBe(502);
    expect(response.headers.get('x-relay-attempts')).toBe('2');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    const body = (await response.json()) as any;
    expect(body.error.message).toMatch(/\(request id: [0-9a-f]{32}\)$/);
  });

  it('all fail by first-byte timeout → 504', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!)],
      env: { RELAY_FIRST_BYTE_TIMEOUT: '1' },
      fallback: [{ ending: 'hang' }],
    });
    const response = await fx.chat();
    expect(response.status).toBe(504);
  });

  it('Anthropic SDK client, every OpenAI channel 503 → 503 in the Anthropic envelope', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)], fallback: [err(503), err(503)] });
    const client = new Anthropic({ apiKey: userKey, baseURL: fx.url, maxRetries: 0 });
    const error = (await client.messages.create({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as any;
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.status).toBe(503);
    expect(error.error?.type).toBe('error');
    expect(error.error?.error?.type).toBe('overloaded_error');
    expect(error.headers?.get?.('x-relay-attempts') ?? error.headers?.['x-relay-attempts']).toBe('2');
  });

  it('Gemini SDK client, every channel 429 → 429 RESOURCE_EXHAUSTED in the Google envelope', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)], fallback: [err(429), err(429)] });
    const client = new GoogleGenAI({ apiKey: userKey, httpOptions: { baseUrl: fx.url } });
    const error = (await client.models.generateContent({ model: 'gpt-4o-mini', contents: 'hi' }).catch((e: unknown) => e)) as any;
    expect(error?.status).toBe(429);
    const parsed = JSON.parse(String(error.message).slice(String(error.message).indexOf('{')));
    expect(parsed.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(parsed.error.code).toBe(429);
  });

  it('a channel with two keys whose first key gets 401: the same request is served with the next key', async () => {
    fx = await startFixture({
      upstreams: 1,
      channels: ([a]) => [channel('a', a!, { key: undefined, keys: ['bad-key', 'good-key'] })],
      fallback: [(req) => (req.headers.authorization === 'Bearer good-key' ? { json: { id: 'x', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } } : { status: 401, json: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } })],
    });
    const response = await fx.chat();
    expect(response.status).toBe(200);
  });

  // From the failover audit: an admin's `sk-<key>-<channelId>` pins the channel, not one of its keys.
  it('a pinned request whose channel’s first key gets 401 is served with the channel’s next key, never another channel', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('a', a!, { key: undefined, keys: ['bad-key', 'good-key'] }), channel('b', b!, { priority: 10 })],
      fallback: [(req) => (req.headers.authorization === 'Bearer good-key' ? { json: { id: 'x', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } } : { status: 401, json: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } })],
    });
    const response = await fx.chat(`${adminUserKey}-${fx.idOf('a')}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('a')));
    expect(response.headers.get('x-relay-attempts')).toBe('2');
    expect(fx.ups[1]!.requests).toHaveLength(0);
  });

  it('Anthropic channel out of credit (400 "Your credit balance is too low"): channel auto-disabled', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('anth', a!, { type: 'anthropic', priority: 10 }), channel('b', b!)],
      fallback: [{ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.' }, request_id: 'req_1' } }, okReply()],
    });
    await (await fx.chat()).arrayBuffer();
    const catalog = fx.gateway.gateway.services.catalog;
    await waitFor(() => catalog.snapshot.channelsById.get(fx!.idOf('anth'))?.status !== 'enabled', 1500);
    expect(catalog.snapshot.channelsById.get(fx.idOf('anth'))?.status).toBe('auto_disabled');
  });

  it('Anthropic channel out of credit (400): the request fails over to the next channel', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('anth', a!, { type: 'anthropic', priority: 10 }), channel('b', b!)],
      fallback: [{ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API.' }, request_id: 'req_1' } }, okReply()],
    });
    const response = await fx.chat();
    expect(response.status).toBe(200);
  });
});

describe('channel-side key errors that vendors send as 400', () => {
  it('Gemini channel with an invalid key (400 API_KEY_INVALID): the request fails over instead of returning the vendor 400', async () => {
    fx = await startFixture({
      upstreams: 2,
      channels: ([a, b]) => [channel('gem', a!, { type: 'gemini', priority: 10 }), channel('b', b!)],
      fallback: [{ status: 400, json: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }] } } }, okReply()],
    });
    const response = await fx.chat();
    expect(response.status).toBe(200);
  });
});
