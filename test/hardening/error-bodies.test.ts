/**
 * Error bodies never carry stack traces, file paths, SQL or a channel's address or key: a failed upstream
 * connection reaches the client as "Upstream connection failed." while the log row's attempts keep the
 * socket's own message. Health routes answer without a key.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { clientKey, send } from './hardening-fixture.js';

/** A loopback port nobody listens on. */
async function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let gateway: TestGateway;
let port: number;
beforeAll(async () => {
  port = await deadPort();
  const price = { input: 1, output: 2 };
  const channel = { groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: {} };
  gateway = await startTestGateway({
    env: { RELAY_CONNECT_TIMEOUT: '2' },
    config: {
      retry_times: 0,
      prices: { 'dead-model': price, 'dns-model': price, 'gem-dead': price },
      channels: [
        { ...channel, name: 'dead', type: 'openai', base_url: `http://127.0.0.1:${port}`, key: 'sk-dead-channel-SECRET', models: ['dead-model'] },
        { ...channel, name: 'dns', type: 'openai', base_url: 'http://internal-billing-db.corp.invalid:8443', key: 'sk-dns-channel-SECRET', models: ['dns-model'] },
        { ...channel, name: 'gem-dead', type: 'gemini', base_url: `http://127.0.0.1:${port}`, key: 'gem-dead-channel-SECRET', models: ['gem-dead'] },
      ],
      users: [{ username: 'caller', role: 'user', group: 'default', enabled: true }],
      tokens: [{ name: 'caller-key', user: 'caller', key: clientKey, unlimited_quota: true, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
});

function expectNoInternals(text: string, secrets: string[]): void {
  expect(text).not.toMatch(/\n\s+at /); // stack frames
  expect(text).not.toMatch(/\/work\/|\/src\/|node_modules|\.ts:\d+/); // file paths
  expect(text).not.toMatch(/\b(select|insert|update)\b .*\b(from|into|set)\b/i); // SQL
  for (const secret of secrets) expect(text, secret).not.toContain(secret);
}

/** The attempts recorded in the log row of one request. */
async function attemptsOf(requestId: string | null): Promise<{ error: string }[]> {
  await gateway.settled();
  const row = await gateway.gateway.services.database.db.selectFrom('logs').select(['attempts']).where('request_id', '=', requestId ?? '').executeTakeFirstOrThrow();
  return JSON.parse(row.attempts);
}

describe('a failed upstream connection', () => {
  it('refused (OpenAI envelope): 502 "Upstream connection failed." without host or port; the log row keeps ECONNREFUSED and the address', async () => {
    const answer = await send(gateway.url, '/v1/chat/completions', { body: { model: 'dead-model', messages: [{ role: 'user', content: 'hi' }] } });
    const id = answer.headers.get('x-request-id');
    expect(answer.status).toBe(502);
    expect(answer.json.error.message).toBe(`Upstream connection failed. (request id: ${id})`);
    expectNoInternals(answer.text, [`127.0.0.1:${port}`, String(port), 'sk-dead-channel-SECRET']);
    const [attempt] = await attemptsOf(id);
    expect(attempt?.error).toMatch(/^Upstream connection failed\. .*ECONNREFUSED/);
    expect(attempt?.error).toContain(`127.0.0.1:${port}`);
  });

  it('a host that does not resolve: the same 502, the internal host name only in the log row', async () => {
    const answer = await send(gateway.url, '/v1/embeddings', { body: { model: 'dns-model', input: 'hi' } });
    const id = answer.headers.get('x-request-id');
    expect(answer.status).toBe(502);
    expect(answer.json.error.message).toBe(`Upstream connection failed. (request id: ${id})`);
    expectNoInternals(answer.text, ['internal-billing-db', 'corp.invalid', 'sk-dns-channel-SECRET']);
    const [attempt] = await attemptsOf(id);
    expect(attempt?.error).toContain('internal-billing-db.corp.invalid');
  });

  it('refused (Gemini envelope): 502 "Upstream connection failed." without host or port', async () => {
    const answer = await send(gateway.url, '/v1beta/models/gem-dead:generateContent', { body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } });
    expect(answer.status).toBe(502);
    expect(answer.json).toEqual({ error: { code: 502, message: 'Upstream connection failed.', status: 'INTERNAL' } });
    const [attempt] = await attemptsOf(answer.headers.get('x-request-id'));
    expect(attempt?.error).toContain(`127.0.0.1:${port}`);
  });
});

describe('client mistakes', () => {
  it('malformed JSON, a lone surrogate, an overflowing number and a NUL body: 400 without stack, path or SQL', async () => {
    for (const raw of ['{"model":', '{"a":"\\ud800"}', '{"model":1e999999}', '\u0000']) {
      const answer = await send(gateway.url, '/v1/chat/completions', { raw });
      expect(answer.status, raw).toBe(400);
      expect(answer.json.error.type, raw).toBe('invalid_request_error');
      expectNoInternals(answer.text, []);
    }
  });
});

describe('health', () => {
  it('/healthz answers GET and HEAD without a key', async () => {
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/healthz`, { method: 'HEAD' })).status).toBe(200);
  });

  it('/readyz answers ready with only status and dialect', async () => {
    // Only the ready answer can be driven here without breaking the shared gateway; test/foundation covers 503.
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'sqlite' });
  });
});
