/**
 * Upstream bodies written one byte per TCP write, so every chunk boundary falls somewhere: inside UTF-8
 * multibyte characters (raw UTF-8 bodies) and inside JSON escapes (Python-style ensure_ascii bodies, where
 * é is `\u00e9` and 🌧 is `\ud83c\udf27` on the wire). Tool calls must reach each SDK whole.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callerKey, M, modelOf, type CrossStyleFixture } from './harness.js';
import { ask, toolStop, type Client } from './tool-wire-helpers.js';

const asciiOnly = (json: string) => json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

let queue: Buffer[] = [];
let server: Server;
let gateway: TestGateway;
let fixture: CrossStyleFixture;

beforeAll(async () => {
  server = createServer(async (request, response) => {
    for await (const _ of request) void _;
    const body = queue.shift() ?? Buffer.from('');
    response.socket?.setNoDelay(true);
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    for (let i = 0; i < body.length; i++) {
      await new Promise<void>((resolve) => response.write(body.subarray(i, i + 1), () => resolve()));
      if (i % 7 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const channel = (name: string, type: 'openai' | 'anthropic' | 'gemini', models: string[], settings: Record<string, unknown> = {}) => ({
    name, type, base_url: url, key: `up-${name}`, models, groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings,
  });
  gateway = await startTestGateway({
    config: {
      prices: Object.fromEntries(Object.values(M).map((model) => [model, { input: 1, output: 2 }])),
      channels: [channel('chat', 'openai', [M.chat]), channel('responses', 'openai', [M.responses], { api: 'responses' }), channel('anthropic', 'anthropic', [M.anthropic]), channel('gemini', 'gemini', [M.gemini])],
      tokens: [{ name: 'caller', key: callerKey, unlimited_quota: true, expires_at: 0, enabled: true }],
    },
  });
  fixture = {
    gateway,
    upstream: undefined as any,
    openai: new OpenAI({ apiKey: callerKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: callerKey, baseURL: gateway.url, maxRetries: 0 }),
    gemini: new GoogleGenAI({ apiKey: callerKey, httpOptions: { baseUrl: gateway.url } }),
    async lastLog() {
      await gateway.settled();
      return (await gateway.gateway.services.repositories.logs.list({}, { page: 1, pageSize: 1 })).items[0];
    },
    close: async () => undefined,
  };
});
afterAll(async () => {
  await gateway?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const argsA = '{"city":"Café \\u00e9 東京 🌧️","note":"a\\"b"}';
const valueA = { city: 'Café é 東京 🌧️', note: 'a"b' };

const cases: { up: WireStyle; client: Client; ascii: boolean }[] = [];
for (const [up, client] of [['openai-chat', 'anthropic'], ['openai-chat', 'openai-responses'], ['anthropic', 'openai-chat'], ['anthropic', 'gemini'], ['openai-responses', 'anthropic'], ['gemini', 'openai-chat']] as [WireStyle, Client][]) {
  for (const ascii of [false, true]) cases.push({ up, client, ascii });
}

describe('every byte its own write', () => {
  it.each(cases)('$up upstream → $client client (ensure_ascii=$ascii)', async ({ up, client, ascii }) => {
    const reply = replyFor(up, { text: 'Voilà — ', tools: [{ id: 'call_B1', name: 'get_weather', args: argsA }, { id: 'call_B2', name: 'get_time', args: '{"tz":"Europe/Zürich"}' }], stop: 'tool', usage: { input: 21, output: 34 }, geminiCallIds: true }, true);
    const newline = reply.crlf === true ? '\r\n' : '\n';
    const text = reply.sse!.map((e) => {
      const data = typeof e.data === 'string' ? e.data : ascii ? asciiOnly(JSON.stringify(e.data)) : JSON.stringify(e.data);
      return `${e.event === undefined ? '' : `event: ${e.event}${newline}`}data: ${data}${newline}${newline}`;
    }).join('');
    queue.push(Buffer.from(text, 'utf8'));
    const seen = await ask(fixture, client, modelOf[up]);
    expect(seen.text).toBe('Voilà — ');
    expect(seen.calls.map((c) => ({ name: c.name, args: c.args }))).toEqual([
      { name: 'get_weather', args: valueA },
      { name: 'get_time', args: { tz: 'Europe/Zürich' } },
    ]);
    expect(seen.calls.map((c) => c.id)).toEqual(['call_B1', 'call_B2']);
    expect(seen.stop).toBe(toolStop[client]);
    expect(await fixture.lastLog()).toMatchObject({ input_tokens: 21, output_tokens: 34, usage_source: 'upstream' });
  });
});
