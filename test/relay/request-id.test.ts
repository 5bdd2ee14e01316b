import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, startRelayFixture, type RelayFixture } from './relay-test-setup.js';

const requestIdPattern = /^[0-9a-f]{32}$/;

/**
 * The relay routes add no per-request hook for x-request-id (build-app.ts, `setsRequestId`): every way
 * they answer must still carry it — and the log row must name the same id.
 */
describe('x-request-id on the relay routes', () => {
  let fixture: RelayFixture;

  beforeAll(async () => {
    fixture = await startRelayFixture();
  });
  afterAll(async () => fixture?.close());

  const post = (path: string, body: unknown, key: string | null = clientKey) =>
    fetch(`${fixture.gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('carries it on a chat answer, and the log row has the same id', async () => {
    const response = await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    await response.json();
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(requestIdPattern);
    const rows = await fixture.logs();
    expect(rows.map((row) => row.request_id)).toContain(id);
  });

  it('carries it on a streamed chat answer', async () => {
    const response = await post('/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-request-id')).toMatch(requestIdPattern);
    await response.text();
  });

  it('carries it on refusals: bad body, bad JSON, no key, unknown model', async () => {
    const refusals = [
      await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: 'hello' }),
      await post('/v1/chat/completions', '{"model":'),
      await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, null),
      await post('/v1/chat/completions', { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
      await post('/v1/messages', { model: 'gpt-4o-mini' }),
    ];
    expect(refusals.map((response) => response.status)).toEqual([400, 400, 401, 400, 400]);
    for (const response of refusals) {
      const id = response.headers.get('x-request-id');
      expect(id).toMatch(requestIdPattern);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(id);
    }
  });

  it('carries it on an upstream error passed through as sent', async () => {
    fixture.upstreamA.enqueueFault({ kind: 'status', status: 400, body: { error: { message: 'bad thing', type: 'invalid_request_error', param: null, code: null } } });
    const response = await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toMatch(requestIdPattern);
  });

  it('carries it on Gemini countTokens, answered without an upstream', async () => {
    const response = await fetch(`${fixture.gateway.url}/v1beta/models/gpt-4o-mini:countTokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': clientKey },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello there' }] }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(requestIdPattern);
  });

  it('still carries it on routes that are not relay routes (the hook covers them)', async () => {
    for (const response of [await fetch(`${fixture.gateway.url}/healthz`), await fetch(`${fixture.gateway.url}/healthz`, { method: 'HEAD' }), await fetch(`${fixture.gateway.url}/v1/models`, { headers: { authorization: `Bearer ${clientKey}` } })]) {
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toMatch(requestIdPattern);
    }
  });
});
