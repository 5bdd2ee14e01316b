/**
 * What reaches the upstream. A model name (from the URL, the body or model_mapping) must land in the
 * upstream URL as one encoded path segment, never as extra path segments, a query or a header; client
 * credentials and hop/proxy headers must never be forwarded; anthropic-version / anthropic-beta must.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicWhole, chatWhole, geminiStream } from '../fakes/scripted-vendor-wire.js';
import { clientKey, odd, send, startHardeningFixture, type HardeningFixture } from './hardening-fixture.js';

let f: HardeningFixture;
beforeAll(async () => {
  f = await startHardeningFixture();
});
afterAll(async () => {
  await f?.close();
});
beforeEach(() => {
  f.gemini.setFallback(geminiStream({ text: 'hi', usage: { input: 3, output: 1 } }));
  f.openai.setFallback(chatWhole({ text: 'hi', usage: { input: 3, output: 1 } }));
  f.anthropic.setFallback(anthropicWhole({ text: 'hi', usage: { input: 3, output: 1 } }));
});

const geminiBody = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
const upstreamGeminiPath = (model: string) => `/v1beta/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`;

describe('Gemini path /v1beta/models/{model}:action', () => {
  for (const [label, model] of Object.entries(odd)) {
    it(`relays model ${JSON.stringify(model)} (${label}), sent percent-encoded, as one encoded upstream segment`, async () => {
      const before = f.gemini.requests.length;
      const answer = await send(f.url, `/v1beta/models/${encodeURIComponent(model)}:generateContent`, { body: geminiBody });
      expect(answer.status).toBe(200);
      const received = f.gemini.requests.slice(before);
      expect(received.map((request) => request.path)).toEqual([upstreamGeminiPath(model)]);
      expect(received[0]?.headers['x-injected']).toBeUndefined();
    });
  }

  it('encodes a model_mapping result (`../../v1/admin?key=stolen#x`) as one segment: no traversal, no query, no fragment', async () => {
    const before = f.gemini.requests.length;
    const answer = await send(f.url, '/v1beta/models/gem-mapped-evil:generateContent', { body: geminiBody });
    expect(answer.status).toBe(200);
    expect(f.gemini.requests.slice(before).map((request) => request.path)).toEqual([upstreamGeminiPath('../../v1/admin?key=stolen#x')]);
  });

  it('decodes the model segment exactly once: `a%252Fb` names the model `a%2Fb` (a listed model), not `a/b`', async () => {
    const before = f.gemini.requests.length;
    const answer = await send(f.url, '/v1beta/models/a%252Fb:generateContent', { body: geminiBody });
    expect(answer.text).not.toContain('`a/b`');
    expect(answer.status).toBe(200);
    expect(f.gemini.requests.slice(before).map((request) => request.path)).toEqual([upstreamGeminiPath('a%2Fb')]);
  });

  it('`%25E0` names the model `%E0` (never decoded a second time into a malformed escape): unknown model, 400', async () => {
    const before = f.gemini.requests.length;
    const answer = await send(f.url, '/v1beta/models/%25E0:generateContent', { body: geminiBody });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: { code: 400, message: 'The model `%E0` does not exist or you do not have access to it.', status: 'INVALID_ARGUMENT' } });
    expect(f.gemini.requests.length).toBe(before);
  });

  it('never forwards the client key (`?key=`, x-goog-api-key) or other client headers; sends the channel key', async () => {
    const before = f.gemini.requests.length;
    const answer = await send(f.url, `/v1beta/models/gemini-2.5-flash:generateContent?key=${encodeURIComponent(clientKey)}`, {
      body: geminiBody,
      headers: { authorization: '', cookie: 'sid=1', 'x-forwarded-for': '1.2.3.4', 'x-goog-user-project': 'p' },
    });
    expect(answer.status).toBe(200);
    const [request] = f.gemini.requests.slice(before);
    expect(request?.path).toBe(upstreamGeminiPath('gemini-2.5-flash'));
    expect(request?.headers['x-goog-api-key']).toBe('upstream-gemini-SECRET');
    for (const name of ['cookie', 'x-forwarded-for', 'authorization', 'x-goog-user-project']) expect(request?.headers[name], name).toBeUndefined();
  });
});

describe('OpenAI-style upstream paths', () => {
  it('/v1/engines/{model}/embeddings: a model with `/`, `?`, `..` stays in the JSON body; the upstream path is fixed', async () => {
    for (const model of ['oa-org/model', 'oa-m?x=1', 'oa-..']) {
      const before = f.openai.requests.length;
      const answer = await send(f.url, `/v1/engines/${encodeURIComponent(model)}/embeddings`, { body: { input: 'hi' } });
      expect(answer.status, model).toBe(200);
      const [request] = f.openai.requests.slice(before);
      expect(request?.path).toBe('/v1/embeddings');
      expect(request?.body.model).toBe(model);
    }
  });

  it('a model_mapping result with `../`, `?`, `#` and CRLF goes only into the JSON body, never into the path or a header', async () => {
    const before = f.openai.requests.length;
    const answer = await send(f.url, '/v1/chat/completions', { body: { model: 'oa-mapped-evil', messages: [{ role: 'user', content: 'hi' }] } });
    expect(answer.status).toBe(200);
    const [request] = f.openai.requests.slice(before);
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.body.model).toBe('x/../../admin?y=1#z\r\nx-injected: 1');
    expect(request?.headers['x-injected']).toBeUndefined();
  });
});

describe('client headers that must not reach the upstream', () => {
  const hostile = {
    cookie: 'session=abc',
    'x-forwarded-for': '1.2.3.4',
    'x-forwarded-host': 'evil.example',
    'x-forwarded-proto': 'http',
    'x-real-ip': '9.9.9.9',
    forwarded: 'for=1.2.3.4',
    'x-request-id': 'client-chosen-id',
    'openai-organization': 'org-client',
    'x-stainless-os': 'Linux',
    'user-agent': 'client-agent',
  };
  const forbidden = [...Object.keys(hostile)];

  it('OpenAI passthrough: only the channel key as Bearer; none of the client headers', async () => {
    const before = f.openai.requests.length;
    const answer = await send(f.url, '/v1/chat/completions', { body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, headers: hostile });
    expect(answer.status).toBe(200);
    const [request] = f.openai.requests.slice(before);
    expect(request?.headers.authorization).toBe('Bearer sk-upstream-openai-SECRET');
    expect(request?.headers.host).toBe(new URL(f.openai.url).host);
    for (const name of forbidden) expect(request?.headers[name], name).toBeUndefined();
  });

  it('Anthropic passthrough: the channel x-api-key (not the client’s), anthropic-version and anthropic-beta forwarded, nothing else', async () => {
    const before = f.anthropic.requests.length;
    const answer = await send(f.url, '/v1/messages', {
      body: { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
      headers: { ...hostile, authorization: '', 'x-api-key': clientKey, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
    });
    expect(answer.status).toBe(200);
    const [request] = f.anthropic.requests.slice(before);
    expect(request?.headers['x-api-key']).toBe('sk-upstream-anthropic-SECRET');
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(request?.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(request?.headers.authorization).toBeUndefined();
    for (const name of forbidden) expect(request?.headers[name], name).toBeUndefined();
  });

  it('Chat Completions client converted to an Anthropic channel: default anthropic-version, no client headers', async () => {
    const before = f.anthropic.requests.length;
    const answer = await send(f.url, '/v1/chat/completions', { body: { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }, headers: { ...hostile, 'anthropic-beta': 'x' } });
    expect(answer.status).toBe(200);
    const [request] = f.anthropic.requests.slice(before);
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(request?.headers['anthropic-beta']).toBeUndefined();
    for (const name of forbidden) expect(request?.headers[name], name).toBeUndefined();
  });
});

describe('response headers back to the client', () => {
  it('relays no upstream header but content-type (no set-cookie, no upstream server/request ids)', async () => {
    f.openai.enqueue({ ...chatWhole({ text: 'hi', usage: { input: 3, output: 1 } }), headers: { 'set-cookie': 'upstream=1', 'x-upstream-secret': 'internal', server: 'internal-proxy', 'openai-organization': 'org-upstream' } });
    const answer = await send(f.url, '/v1/chat/completions', { body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } });
    expect(answer.status).toBe(200);
    for (const name of ['set-cookie', 'x-upstream-secret', 'server', 'openai-organization']) expect(answer.headers.get(name), name).toBeNull();
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
  });
});
