/**
 * From the auth audit: the realtime handshake (Bearer and subprotocol key), the task routes and upload
 * presign refuse missing, wrong, disabled and expired keys, disabled users, model limits and non-admin pins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startSecurityGateway } from '../security/start-security-gateway.js';
import type { SecuritySuiteContext } from '../security/relay-security-suite.js';

let context: SecuritySuiteContext;
beforeAll(async () => {
  context = await startSecurityGateway({ allowedModel: 'gpt-realtime', forbiddenModel: 'gpt-realtime-forbidden' });
});
afterAll(async () => context?.close());

function upgrade(path: string, headers: Record<string, string>, protocols?: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${context.baseUrl.replace('http', 'ws')}${path}`, protocols, { headers });
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.on('open', () => {
      socket.terminate();
      resolve({ status: 101, body: '' });
    });
    socket.on('error', () => undefined);
  });
}

describe('realtime upgrade refuses keys beyond their limits', () => {
  const cases: [string, () => string, number, string][] = [
    ['disabled token', () => context.keys.disabledToken, 401, 'token_disabled'],
    ['expired token', () => context.keys.expiredToken, 401, 'token_expired'],
    ['disabled user', () => context.keys.disabledUser, 403, 'user_disabled'],
    ['non-admin pin', () => `${context.keys.valid}-${context.channelId}`, 403, 'channel_pin_forbidden'],
  ];
  for (const [name, key, status, code] of cases) {
    it(`${name} (Bearer) → ${status} ${code}`, async () => {
      const before = context.upstreamRequests();
      const answer = await upgrade('/v1/realtime?model=gpt-realtime', { authorization: `Bearer ${key()}` });
      expect(answer.status, answer.body).toBe(status);
      expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe(code);
      expect(answer.body).not.toContain(key());
      expect(context.upstreamRequests()).toBe(before);
    });
    it(`${name} (subprotocol) → ${status} ${code}`, async () => {
      const answer = await upgrade('/v1/realtime?model=gpt-realtime', {}, ['realtime', `openai-insecure-api-key.${key()}`]);
      expect(answer.status, answer.body).toBe(status);
    });
  }
  it('model outside model_limits → 403 model_not_allowed', async () => {
    const answer = await upgrade('/v1/realtime?model=gpt-realtime-forbidden', { authorization: `Bearer ${context.keys.valid}` });
    expect(answer.status, answer.body).toBe(403);
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe('model_not_allowed');
  });
});

async function post(path: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${context.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe('task and upload routes refuse keys beyond their limits', () => {
  const keys: [string, () => string, number][] = [
    ['disabled token', () => context.keys.disabledToken, 401],
    ['expired token', () => context.keys.expiredToken, 401],
    ['disabled user', () => context.keys.disabledUser, 403],
    ['non-admin pin', () => `${context.keys.valid}-${context.channelId}`, 403],
  ];
  const routes: [string, unknown][] = [
    ['/suno/submit/music', { prompt: 'x', mv: 'chirp-v3-5' }],
    ['/mj/submit/imagine', { prompt: 'x' }],
    ['/kling/v1/videos/text2video', { model_name: 'kling-v1', prompt: 'x' }],
    ['/api/upload/presign', {}],
    ['/suno/fetch', { ids: [] }],
    ['/mj/task/list-by-condition', { ids: [] }],
  ];
  for (const [path, body] of routes) {
    for (const [name, key, status] of keys) {
      it(`${path}: ${name} → ${status}`, async () => {
        const answer = await post(path, key(), body);
        expect(answer.status, answer.text).toBe(status);
        expect(answer.text).not.toContain(key());
      });
    }
    it(`${path}: no key → 401`, async () => {
      const answer = await post(path, undefined, body);
      expect(answer.status, answer.text).toBe(401);
    });
  }
  it('mj-api-secret with an expired token → 401', async () => {
    const answer = await post('/mj/submit/imagine', undefined, { prompt: 'x' }, { 'mj-api-secret': context.keys.expiredToken });
    expect(answer.status, answer.text).toBe(401);
  });
});
