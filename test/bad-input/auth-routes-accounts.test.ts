import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, send, startBadInputFixture, withoutCharge, type BadInputFixture, type Style } from './bad-input-fixture.js';

const J = JSON.stringify;
const chatBody = J({ model: models.chat, messages: [{ role: 'user', content: 'hi' }] });

describe('keys, unknown routes, model lists, account routes and content types are refused in the envelope of the route, without charge or upstream call', () => {
  let fixture: BadInputFixture;
  beforeAll(async () => {
    fixture = await startBadInputFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  describe('keys on OpenAI-style routes (Bearer only; docs/behaviour.md "Authentication")', () => {
    it.each([
      { name: 'no key', auth: null, headers: {} as Record<string, string>, path: '/v1/chat/completions', status: 401 },
      { name: 'key in x-api-key', auth: null, headers: { 'x-api-key': keys.good }, path: '/v1/chat/completions', status: 401 },
      { name: 'key in x-goog-api-key', auth: null, headers: { 'x-goog-api-key': keys.good }, path: '/v1/embeddings', status: 401 },
      { name: 'key in ?key=', auth: null, headers: {}, path: `/v1/chat/completions?key=${keys.good}`, status: 401 },
      { name: 'Basic authorization', auth: null, headers: { authorization: 'Basic Zm9vOmJhcg==' }, path: '/v1/chat/completions', status: 401 },
      { name: 'empty Bearer', auth: null, headers: { authorization: 'Bearer ' }, path: '/v1/responses', status: 401 },
      { name: 'unknown key', auth: keys.unknown, headers: {}, path: '/v1/completions', status: 401 },
      { name: 'disabled token', auth: keys.disabled, headers: {}, path: '/v1/moderations', status: 401 },
      { name: 'expired token', auth: keys.expired, headers: {}, path: '/v1/rerank', status: 401 },
      { name: 'disabled user', auth: keys.disabledUser, headers: {}, path: '/v1/chat/completions', status: 403 },
      { name: 'channel pin by a plain user', auth: `${keys.good}-1`, headers: {}, path: '/v1/chat/completions', status: 403 },
    ])('$name on $path → $status', async ({ auth, headers, path, status }) => {
      const sent = await withoutCharge(fixture, () => send(fixture, path, { body: chatBody, auth, headers }));
      expect(sent.status).toBe(status);
      expectEnvelope(sent, 'openai');
      expect(sent.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    });
  });

  describe('unknown routes and wrong methods answer 404 in the envelope of their prefix', () => {
    it.each<{ method: string; path: string; style: Style }>([
      { method: 'POST', path: '/v1/no-such-route', style: 'openai' },
      { method: 'GET', path: '/v1/chat/completions', style: 'openai' },
      { method: 'PUT', path: '/v1/embeddings', style: 'openai' },
      { method: 'POST', path: '/v1/models', style: 'openai' },
      { method: 'GET', path: '/v1/messages', style: 'anthropic' },
      { method: 'POST', path: '/v1/messages/no-such-route', style: 'anthropic' },
      { method: 'POST', path: '/v1/messages/batches', style: 'anthropic' },
      { method: 'POST', path: '/v1beta/no-such-route', style: 'gemini' },
      { method: 'POST', path: `/v1beta/models/${models.gemini}`, style: 'gemini' },
      { method: 'GET', path: '/api/no-such-route', style: 'api' },
      { method: 'POST', path: '/v1/dashboard/billing/usage', style: 'openai' },
    ])('$method $path → 404 ($style)', async ({ method, path, style }) => {
      const sent = await withoutCharge(fixture, () => send(fixture, path, { method, body: method === 'GET' ? undefined : '{}' }));
      expect(sent.status).toBe(404);
      expectEnvelope(sent, style);
    });
  });

  describe('model lists: refusals in the style the headers announce (spec §5.3)', () => {
    it.each<{ name: string; path: string; headers: Record<string, string>; status: number; style: Style }>([
      { name: 'no key, default style', path: '/v1/models', headers: {}, status: 401, style: 'openai' },
      { name: 'bad x-api-key → Claude style', path: '/v1/models', headers: { 'x-api-key': keys.unknown }, status: 401, style: 'anthropic' },
      { name: 'anthropic-version, no key → Claude style', path: '/v1/models', headers: { 'anthropic-version': '2023-06-01' }, status: 401, style: 'anthropic' },
      { name: 'bad x-goog-api-key → Gemini style', path: '/v1/models', headers: { 'x-goog-api-key': keys.unknown }, status: 401, style: 'gemini' },
      { name: 'bad ?key= → Gemini style', path: `/v1/models?key=${keys.unknown}`, headers: {}, status: 401, style: 'gemini' },
      { name: 'unknown model, Claude style', path: '/v1/models/no-such-model', headers: { 'x-api-key': keys.good }, status: 404, style: 'anthropic' },
      { name: 'unknown model, Gemini style', path: `/v1/models/no-such-model?key=${keys.good}`, headers: {}, status: 404, style: 'gemini' },
      { name: '/v1beta/models no key', path: '/v1beta/models', headers: {}, status: 401, style: 'gemini' },
      { name: '/v1beta/models/{unknown}', path: `/v1beta/models/no-such-model?key=${keys.good}`, headers: {}, status: 404, style: 'gemini' },
      { name: '/v1beta/openai/models no key', path: '/v1beta/openai/models', headers: {}, status: 401, style: 'openai' },
      { name: 'expired key', path: `/v1/models?key=${keys.expired}`, headers: {}, status: 401, style: 'gemini' },
    ])('$name → $status', async ({ path, headers, status, style }) => {
      const sent = await withoutCharge(fixture, () => send(fixture, path, { method: 'GET', auth: null, headers }));
      expect(sent.status).toBe(status);
      expectEnvelope(sent, style);
    });

    it('a key with model_limits lists only its models', async () => {
      const sent = await send(fixture, '/v1/models', { method: 'GET', auth: keys.restricted });
      expect(sent.status).toBe(200);
      expect(sent.body.data.map((model: { id: string }) => model.id)).toEqual([models.embedding]);
    });
  });

  describe('account routes (spec §4.11, §7.1–7.3)', () => {
    it.each([
      { name: 'no key', auth: null, status: 401 },
      { name: 'unknown key', auth: keys.unknown, status: 401 },
      { name: 'disabled token', auth: keys.disabled, status: 401 },
      { name: 'disabled user', auth: keys.disabledUser, status: 403 },
    ])('/v1/dashboard/billing/subscription with $name → $status (OpenAI envelope)', async ({ auth, status }) => {
      const sent = await withoutCharge(fixture, () => send(fixture, '/v1/dashboard/billing/subscription', { method: 'GET', auth }));
      expect(sent.status).toBe(status);
      expectEnvelope(sent, 'openai');
    });

    it('/dashboard/billing/usage with x-api-key only → 401 (OpenAI envelope)', async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, '/dashboard/billing/usage', { method: 'GET', auth: null, headers: { 'x-api-key': keys.good } }));
      expect(sent.status).toBe(401);
      expectEnvelope(sent, 'openai');
    });

    it.each([
      { name: 'no Authorization header (§7.1)', headers: {} as Record<string, string>, message: 'No Authorization header' },
      { name: 'malformed "Bearer not a key" (§7.2)', headers: { authorization: 'Bearer not a key' }, message: 'Invalid Bearer token' },
      { name: 'malformed "Basic …" (§7.2)', headers: { authorization: 'Basic Zm9vOmJhcg==' }, message: 'Invalid Bearer token' },
      { name: 'malformed "Bearer " (§7.2)', headers: { authorization: 'Bearer ' }, message: 'Invalid Bearer token' },
      { name: 'a disabled token', headers: { authorization: `Bearer ${keys.disabled}` }, message: 'This API key has been disabled.' },
    ])('/api/usage/token/ with $name → 401 success false, "$message"', async ({ headers, message }) => {
      const sent = await withoutCharge(fixture, () => send(fixture, '/api/usage/token/', { method: 'GET', auth: null, headers }));
      expect(sent.status).toBe(401);
      expect(expectEnvelope(sent, 'api')).toBe(message);
    });
  });

  describe('content types', () => {
    it('JSON without a content-type header is served and reaches the upstream (docs: curl-style clients)', async () => {
      const calls = fixture.openai.requests.length;
      const response = await fetch(`${fixture.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${keys.good}` }, body: new Blob([chatBody]) });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ object: 'chat.completion' });
      expect(fixture.openai.requests.length - calls).toBe(1);
    });

    it.each([
      { name: 'a form-encoded body', body: 'model=gpt-4o-mini' as string | Buffer, headers: { 'content-type': 'application/x-www-form-urlencoded' } as Record<string, string> },
      { name: 'a gzip-encoded body (not decoded)', body: gzipSync(chatBody), headers: { 'content-encoding': 'gzip' } },
    ])('$name → 400 invalid_json', async ({ body, headers }) => {
      const sent = await withoutCharge(fixture, () => send(fixture, '/v1/chat/completions', { body, headers }));
      expect(sent.status).toBe(400);
      expectEnvelope(sent, 'openai');
      expect(sent.body.error.code).toBe('invalid_json');
    });
  });
});
