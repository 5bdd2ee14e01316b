/**
 * From the authorization red team: the `Authorization` scheme is case-insensitive (RFC 9110 §11.1, formerly
 * RFC 7235 §2.1), so `bearer <key>` and `BEARER <key>` are the key as `Bearer <key>` is, on every route style
 * that takes a key — OpenAI, Anthropic, Gemini, the Realtime upgrade — and on the admin API and the token
 * usage route. Each raw request is compared with what the style's official SDK gets for the same call.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeAnthropicUpstream, type FakeAnthropicUpstream } from '../fakes/fake-anthropic-upstream.js';
import { startFakeGeminiUpstream, type FakeGeminiUpstream } from '../fakes/fake-gemini-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import { startTestGateway, testAdminKey, type TestGateway } from '../support/start-test-gateway.js';

const key = `sk-${'b'.repeat(48)}`;
const schemes = ['bearer', 'BEARER', 'bEaReR'];

let openaiUpstream: FakeOpenaiUpstream;
let anthropicUpstream: FakeAnthropicUpstream;
let geminiUpstream: FakeGeminiUpstream;
let realtimeUpstream: FakeRealtimeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  openaiUpstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-openai-upstream'] });
  anthropicUpstream = await startFakeAnthropicUpstream({ expectedKeys: ['sk-ant-upstream'] });
  geminiUpstream = await startFakeGeminiUpstream({ expectedKeys: ['gemini-upstream-key'] });
  realtimeUpstream = await startFakeRealtimeUpstream({ expectedKeys: ['sk-realtime-upstream'] });
  const channel = (name: string, type: 'openai' | 'anthropic' | 'gemini', url: string, channelKey: string, model: string) => ({
    name, type, base_url: url, key: channelKey, models: [model], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {},
  });
  gateway = await startTestGateway({
    config: {
      prices: Object.fromEntries(['gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'gpt-realtime'].map((model) => [model, { input: 1, output: 2 }])),
      channels: [
        channel('openai', 'openai', openaiUpstream.url, 'sk-openai-upstream', 'gpt-4o-mini'),
        channel('anthropic', 'anthropic', anthropicUpstream.url, 'sk-ant-upstream', 'claude-sonnet-4-5'),
        channel('gemini', 'gemini', geminiUpstream.url, 'gemini-upstream-key', 'gemini-2.5-flash'),
        channel('realtime', 'openai', realtimeUpstream.url, 'sk-realtime-upstream', 'gpt-realtime'),
      ],
      tokens: [{ name: 'scheme-case', key, unlimited_quota: true, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([openaiUpstream?.close(), anthropicUpstream?.close(), geminiUpstream?.close(), realtimeUpstream?.close()]);
});

async function raw(path: string, authorization: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
}

function upgrade(authorization: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization } });
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.on('open', () => {
      socket.close();
      resolve(101);
    });
    socket.on('error', () => undefined);
  });
}

describe('the Authorization scheme in any case', () => {
  it('OpenAI: the SDK (Bearer) and raw bearer/BEARER requests are all served alike', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const sdk = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
    expect(sdk.object).toBe('chat.completion');
    for (const scheme of schemes) {
      const answer = await raw('/v1/chat/completions', `${scheme} ${key}`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
      expect(answer.status, `${scheme}: ${JSON.stringify(answer.json)}`).toBe(200);
      expect(answer.json.object).toBe('chat.completion');
    }
    // A scheme that is not Bearer at all is still a wrong key, as the SDK's wrong key is.
    expect((await raw('/v1/chat/completions', `Basic ${key}`, { model: 'gpt-4o-mini', messages: [] })).status).toBe(401);
  });

  it('Anthropic: the SDK (x-api-key) and raw bearer/BEARER requests to /v1/messages are all served alike', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
    const sdk = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect(sdk.type).toBe('message');
    for (const scheme of schemes) {
      const answer = await raw('/v1/messages', `${scheme} ${key}`, { model: 'claude-sonnet-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, { 'anthropic-version': '2023-06-01' });
      expect(answer.status, `${scheme}: ${JSON.stringify(answer.json)}`).toBe(200);
      expect(answer.json.type).toBe('message');
    }
  });

  it('Gemini: the SDK (x-goog-api-key) and raw bearer/BEARER requests to :generateContent are all served alike', async () => {
    const client = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } });
    const sdk = await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });
    expect(sdk.candidates?.length).toBeGreaterThan(0);
    for (const scheme of schemes) {
      const answer = await raw('/v1beta/models/gemini-2.5-flash:generateContent', `${scheme} ${key}`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
      expect(answer.status, `${scheme}: ${JSON.stringify(answer.json)}`).toBe(200);
      expect(answer.json.candidates.length).toBeGreaterThan(0);
    }
  });

  it('Realtime: the upgrade takes bearer/BEARER as it takes Bearer', async () => {
    expect(await upgrade(`Bearer ${key}`)).toBe(101);
    for (const scheme of schemes) expect(await upgrade(`${scheme} ${key}`), scheme).toBe(101);
    expect(await upgrade(`Basic ${key}`)).toBe(401);
  });

  it('the admin API and the token usage route read the scheme in any case too', async () => {
    for (const scheme of ['Bearer', ...schemes]) {
      expect((await raw('/api/admin/tokens', `${scheme} ${testAdminKey}`)).status, scheme).toBe(200);
      expect((await raw('/api/usage/token/', `${scheme} ${key}`)).status, scheme).toBe(200);
    }
  });
});
