/**
 * Cross-origin access (src/http/cors.ts): browser SDKs (openai with dangerouslyAllowBrowser, @anthropic-ai/sdk,
 * @google/genai) preflight every call; any origin may call, and every answer is readable cross-origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicWhole, chatStream, chatWhole, errorReply, geminiStream } from '../fakes/scripted-vendor-wire.js';
import { clientKey, startHardeningFixture, type HardeningFixture } from './hardening-fixture.js';

let f: HardeningFixture;
beforeAll(async () => {
  f = await startHardeningFixture();
  const usage = { input: 3, output: 2 };
  f.openai.setFallback((request) => (request.body?.stream === true ? chatStream({ text: 'hi', usage }) : chatWhole({ text: 'hi', usage })));
  f.anthropic.setFallback(anthropicWhole({ text: 'hi', usage }));
  f.gemini.setFallback(geminiStream({ text: 'hi', usage }));
});
afterAll(async () => {
  await f?.close();
});

const origin = 'https://app.example';

describe('preflight', () => {
  for (const path of ['/v1/chat/completions', '/v1/messages', '/v1/models', '/v1beta/models/gemini-2.5-flash:generateContent', '/api/admin/channels', '/no/such/path']) {
    it(`OPTIONS ${path}: 204, any origin, the methods, the requested headers echoed, cached for a day`, async () => {
      const requested = 'authorization,content-type,x-api-key,anthropic-version,x-goog-api-key,x-stainless-os';
      const response = await fetch(`${f.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': requested } });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const methods = (response.headers.get('access-control-allow-methods') ?? '').split(/,\s*/);
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) expect(methods, method).toContain(method);
      expect(response.headers.get('access-control-allow-headers')).toBe(requested);
      expect(response.headers.get('access-control-max-age')).toBe('86400');
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    });
  }

  it('a preflight that names no headers is allowed the ones the vendor SDKs send', async () => {
    const response = await fetch(`${f.url}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
    expect(response.status).toBe(204);
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
    for (const header of ['authorization', 'content-type', 'x-api-key', 'anthropic-version', 'x-goog-api-key']) expect(allowed, header).toContain(header);
  });
});

describe('every answer is readable cross-origin: allow-origin * and every header exposed (*, valid without credentials)', () => {
  const bearer = { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' };
  const chat = (extra: object = {}) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra });
  const cases: { label: string; status: number; path: string; init: { method?: string; headers: Record<string, string>; body?: string }; before?: () => void }[] = [
    { label: 'relay success, whole', status: 200, path: '/v1/chat/completions', init: { method: 'POST', headers: bearer, body: chat() } },
    { label: 'relay success, streamed', status: 200, path: '/v1/chat/completions', init: { method: 'POST', headers: bearer, body: chat({ stream: true }) } },
    { label: 'relay success, Anthropic style', status: 200, path: '/v1/messages', init: { method: 'POST', headers: { 'x-api-key': clientKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }) } },
    { label: 'relay success, Gemini style', status: 200, path: '/v1beta/models/gemini-2.5-flash:generateContent', init: { method: 'POST', headers: { 'x-goog-api-key': clientKey, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) } },
    { label: 'relay error passed through from the upstream', status: 400, path: '/v1/chat/completions', init: { method: 'POST', headers: bearer, body: chat() }, before: () => f.openai.enqueue(errorReply('openai-chat', 400, 'upstream says no')) },
    { label: 'relay error: missing key', status: 401, path: '/v1/chat/completions', init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: chat() } },
    { label: 'relay error: unknown model', status: 400, path: '/v1/chat/completions', init: { method: 'POST', headers: bearer, body: JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }) } },
    { label: 'model list, OpenAI style', status: 200, path: '/v1/models', init: { headers: bearer } },
    { label: 'model list, Gemini style', status: 200, path: '/v1beta/models', init: { headers: { 'x-goog-api-key': clientKey } } },
    { label: 'unknown path', status: 404, path: '/v1/no-such-route', init: { headers: bearer } },
  ];
  for (const { label, status, path, init, before } of cases) {
    it(`${label} (${status})`, async () => {
      before?.();
      const response = await fetch(`${f.url}${path}`, { ...init, headers: { origin, ...init.headers } });
      await response.arrayBuffer();
      expect(response.status).toBe(status);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    });
  }
});
