import { createServer, type Server, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../src/http/app-services.js';
import '../../src/http/fastify-types.js';
import { handleFrameworkError, registerErrorHandling } from '../../src/http/middleware/handle-errors.js';
import { registerJsonBodyParser } from '../../src/http/middleware/parse-json-body.js';
import { healthRoutes } from '../../src/http/routes/health-routes.js';
import { createDatabase } from '../../src/storage/create-database.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { sendUnfinishedRequest, startProbeGateway, type ProbeGateway } from './start-probe-gateway.js';

const requestIdPattern = /^[0-9a-f]{32}$/;

/** The body parser and the error handler alone, as build-app.ts wires them. */
async function buildParserApp(bodyLimit: number): Promise<FastifyInstance> {
  let sequence = 0;
  const app = Fastify({ bodyLimit, frameworkErrors: handleFrameworkError, genReqId: () => `req${(sequence += 1).toString().padStart(29, '0')}` });
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.decorateRequest('rawBody', undefined);
  app.decorateRequest('errorStyle', undefined);
  registerJsonBodyParser(app);
  registerErrorHandling(app);
  const echo = async (request: { body: unknown }) => ({ body: request.body });
  app.post('/v1/chat/completions', echo);
  app.post('/v1/messages', echo);
  app.post('/v1beta/models/*', echo);
  app.post('/api/upload/presign', echo);
  app.get('/v1/models/:model', async () => ({}));
  await app.ready();
  return app;
}

describe('JSON parser and error handler', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await buildParserApp(1024);
  });
  afterAll(async () => app?.close());

  const post = (url: string, payload: string) => app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });

  it('answers malformed JSON with 400 invalid_json in the OpenAI envelope on /v1/*', async () => {
    const response = await post('/v1/chat/completions', '{"model": "gpt-4o-mini",');
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toEqual({ error: { message: expect.stringContaining('not valid JSON'), type: 'invalid_request_error', param: null, code: 'invalid_json' } });
  });

  it('answers malformed JSON in the Anthropic envelope on /v1/messages', async () => {
    const response = await post('/v1/messages', '{nope');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('not valid JSON') } });
  });

  it('answers malformed JSON in the Gemini envelope on /v1beta/*', async () => {
    const response = await post('/v1beta/models/gemini-2.0-flash:generateContent', '[1,');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 400, message: expect.stringContaining('not valid JSON'), status: 'INVALID_ARGUMENT' } });
  });

  it('answers malformed JSON with success:false on /api/*', async () => {
    const response = await post('/api/upload/presign', 'not json');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ success: false, message: expect.stringContaining('not valid JSON') });
  });

  it.each([
    ['__proto__', '{"model":"m","__proto__":{"isAdmin":true}}'],
    ['__proto__ nested and \\u-escaped', '{"messages":[{"role":"user","\\u005f_proto__":{"x":1}}]}'],
    ['constructor.prototype', '{"tools":[{"constructor":{"prototype":{"x":1}}}]}'],
  ])('refuses a prototype-poisoning key (%s) with 400 invalid_json', async (_name, payload) => {
    const response = await post('/v1/chat/completions', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'invalid_json', message: expect.stringContaining('forbidden key') } });
  });

  it('accepts those words where they are not poisoning keys', async () => {
    const payload = '{"messages":[{"role":"user","content":"what does \\"__proto__\\": do?"}],"constructor":"fine","schema":{"constructor":{"type":"string"}}}';
    const response = await post('/v1/chat/completions', payload);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ body: JSON.parse(payload) });
  });

  it('answers a URL that is not validly percent-encoded with 400 in the error model, with a request id', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/models/%E0%A4%A' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['x-request-id']).toBeTruthy();
    expect(response.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_request' } });
  });

  it('answers an over-long path parameter with 414 in the error model', async () => {
    const response = await app.inject({ method: 'GET', url: `/v1/models/${'m'.repeat(200)}` });
    expect(response.statusCode).toBe(414);
    expect(response.headers['x-request-id']).toBeTruthy();
    expect(response.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('answers a body over the limit with 413 in the calling style', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(2048) });
    const openai = await post('/v1/chat/completions', big);
    expect(openai.statusCode).toBe(413);
    expect(openai.json()).toMatchObject({ error: { code: 'body_too_large', type: 'invalid_request_error' } });
    const anthropic = await post('/v1/messages', big);
    expect(anthropic.statusCode).toBe(413);
    expect(anthropic.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });
});

describe('request body limit of the running gateway (max_body_mb: 0.001)', () => {
  let probe: ProbeGateway;
  const limit = Math.floor(0.001 * 1024 * 1024);

  beforeAll(async () => {
    probe = await startProbeGateway({ max_body_mb: 0.001 });
  });
  afterAll(async () => probe?.close());

  it('answers a body over the limit with 413 in the OpenAI envelope', async () => {
    const response = await fetch(`${probe.url}/v1/probe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ padding: 'x'.repeat(limit) }) });
    expect(response.status).toBe(413);
    expect(response.headers.get('x-request-id')).toMatch(requestIdPattern);
    expect(await response.json()).toMatchObject({ error: { code: 'body_too_large', type: 'invalid_request_error', param: null } });
  });

  it('answers 413 at once when Content-Length announces a giant body that never arrives', async () => {
    const head = [`POST /v1/probe HTTP/1.1`, `Host: 127.0.0.1`, 'Content-Type: application/json', `Content-Length: ${8 * 1024 * 1024 * 1024}`, '', ''].join('\r\n');
    const response = await sendUnfinishedRequest(probe.url, head, ['{"padding":"'], 3_000);
    expect(response.statusLine).toMatch(/^HTTP\/1\.1 413/);
    expect(response.headers['x-request-id']).toMatch(requestIdPattern);
    expect(response.elapsedMs).toBeLessThan(3_000);
  });

  it('answers 413 while reading a chunked body, as soon as it passes the limit', async () => {
    const head = [`POST /v1/probe HTTP/1.1`, `Host: 127.0.0.1`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', '', ''].join('\r\n');
    const chunk = 'x'.repeat(512);
    const chunks = Array.from({ length: 4 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    // The terminating zero-length chunk is never sent: the gateway must not wait for the end of the body.
    const response = await sendUnfinishedRequest(probe.url, head, chunks, 3_000);
    expect(response.statusLine).toMatch(/^HTTP\/1\.1 413/);
  });

  it('answers malformed JSON with 400 invalid_json and a request id', async () => {
    const response = await fetch(`${probe.url}/v1/probe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toMatch(requestIdPattern);
    const body = (await response.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe('invalid_json');
    expect(body.error.message).toContain(`(request id: ${response.headers.get('x-request-id')})`);
  });
});

describe('unknown paths', () => {
  let server: TestGateway;

  beforeAll(async () => {
    server = await startTestGateway();
  });
  afterAll(async () => server?.close());

  const request = (method: string, path: string) => fetch(`${server.url}${path}`, { method });

  it('answers 404 Invalid URL in the OpenAI envelope on /v1/*', async () => {
    const response = await request('GET', '/v1/x');
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toMatch(requestIdPattern);
    expect(await response.json()).toEqual({
      error: { message: expect.stringMatching(/^Invalid URL \(GET \/v1\/x\)/), type: 'invalid_request_error', param: null, code: 'not_found' },
    });
  });

  it('answers 404 Invalid URL in the Anthropic envelope on /v1/messages/*', async () => {
    const response = await request('POST', '/v1/messages/x');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: expect.stringMatching(/^Invalid URL \(POST \/v1\/messages\/x\)/) } });
  });

  it('answers 404 Invalid URL in the Gemini envelope on /v1beta/*', async () => {
    const response = await request('GET', '/v1beta/x');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 404, message: 'Invalid URL (GET /v1beta/x)', status: 'NOT_FOUND' } });
  });

  it('answers 404 Invalid URL with success:false on /api/*', async () => {
    const response = await request('GET', '/api/x');
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toMatch(requestIdPattern);
    expect(await response.json()).toEqual({ success: false, message: 'Invalid URL (GET /api/x)' });
  });

  it('leaves the query string (which may hold a key) out of the message', async () => {
    const response = await request('GET', '/v1beta/x?key=sk-secret');
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe('Invalid URL (GET /v1beta/x)');
  });

  it('answers a known path with the wrong method as an unknown URL', async () => {
    const response = await request('DELETE', '/healthz');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^Invalid URL \(DELETE \/healthz\)/);
  });
});

describe('readiness when the database does not answer', () => {
  let silentServer: Server;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    // Accepts connections and never says a word, like a database behind a dropped route.
    silentServer = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silentServer.close(() => resolve()));
  });

  it('answers /readyz with 503 within the readiness timeout instead of hanging', async () => {
    const { port } = silentServer.address() as { port: number };
    const database = await createDatabase(`postgres://relay@127.0.0.1:${port}/relay`);
    const app = Fastify();
    await healthRoutes(app, { database } as AppServices, { readinessTimeoutMs: 300 });
    const started = Date.now();
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 'unavailable', database: 'postgres', error: expect.stringContaining('did not answer') });
    expect(Date.now() - started).toBeLessThan(2_000);
    await app.close();
    void database.db.destroy().catch(() => undefined);
  });
});

describe('readiness after the database is gone', () => {
  it('answers /readyz with 503 once the database handle is destroyed, while /healthz stays 200', async () => {
    const server = await startTestGateway();
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      await server.gateway.services.database.db.destroy();
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('x-request-id')).toMatch(requestIdPattern);
      expect(await ready.json()).toMatchObject({ status: 'unavailable', database: 'sqlite' });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
