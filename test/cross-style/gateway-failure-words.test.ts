/**
 * The gateway's own failure to get an answer — an upstream it cannot reach, an answer cut mid-stream — in
 * each client style's words (the kind table, map-error-kind.ts). OpenAI clients were given `type:
 * "upstream_error"`, a type OpenAI never sends (its SDK users branch on `server_error`); the gateway's code
 * (`upstream_error`, `stream_interrupted`) stays in `code`.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { caught, callerKey, M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('an upstream the gateway cannot reach', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    const base = `http://127.0.0.1:${await closedPort()}`;
    gateway = await startTestGateway({
      config: {
        prices: { [M.anthropic]: { input: 1, output: 2 } },
        channels: [{ name: 'gone', type: 'anthropic', base_url: base, key: 'up-gone', models: [M.anthropic], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
        tokens: [{ name: 'caller', key: callerKey, unlimited_quota: true, expires_at: 0, enabled: true }],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('reaches an openai client as a 502 server_error with the gateway\'s code', async () => {
    const error = await caught(new OpenAI({ apiKey: callerKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: M.anthropic, messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect({ status: error.status, type: error.type, code: error.code }).toEqual({ status: 502, type: 'server_error', code: 'upstream_error' });
  });

  it('reaches Anthropic and Gemini clients as their server fault (api_error, INTERNAL)', async () => {
    const anthropic = await caught(new Anthropic({ apiKey: callerKey, baseURL: gateway.url, maxRetries: 0 }).messages.create({ model: M.anthropic, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }));
    expect(anthropic.status).toBe(502);
    expect(anthropic.error).toMatchObject({ error: { type: 'api_error' } });
    const gemini = await caught(new GoogleGenAI({ apiKey: callerKey, httpOptions: { baseUrl: gateway.url } }).models.generateContent({ model: M.anthropic, contents: 'hi' }));
    expect(gemini).toBeInstanceOf(ApiError);
    expect(JSON.parse(gemini.message)).toMatchObject({ error: { code: 502, status: 'INTERNAL' } });
  });
});

describe('an answer cut mid-stream', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it('reaches an openai Chat client as an APIError of type server_error, code stream_interrupted', async () => {
    const whole = replyFor('anthropic', { text: 'Partial answer', usage: { input: 5, output: 5 } }, true);
    fixture.upstream.enqueue({ ...whole, sse: whole.sse!.slice(0, 3) });
    let text = '';
    const error = await caught((async () => {
      for await (const chunk of await fixture.openai.chat.completions.create({ model: M.anthropic, messages: [{ role: 'user', content: 'hi' }], stream: true })) text += chunk.choices[0]?.delta.content ?? '';
    })());
    expect(text).not.toBe('');
    expect({ type: error.type, code: error.code }).toEqual({ type: 'server_error', code: 'stream_interrupted' });
  });
});
