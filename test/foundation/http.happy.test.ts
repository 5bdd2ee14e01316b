import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { startProbeGateway, type ProbeEcho, type ProbeGateway } from './start-probe-gateway.js';

describe('health routes', () => {
  let server: TestGateway;

  beforeAll(async () => {
    server = await startTestGateway();
  });
  afterAll(async () => server?.close());

  it('answers /healthz with 200 while the process runs', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz with 200 while the database answers', async () => {
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', database: 'sqlite' });
  });

  it('gives every response its own x-request-id', async () => {
    const first = await fetch(`${server.url}/healthz`);
    const second = await fetch(`${server.url}/healthz`);
    const firstId = first.headers.get('x-request-id');
    expect(firstId).toMatch(/^[0-9a-f]{32}$/);
    expect(second.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(second.headers.get('x-request-id')).not.toBe(firstId);
  });
});

describe('JSON request bodies', () => {
  let probe: ProbeGateway;

  beforeAll(async () => {
    probe = await startProbeGateway({ max_body_mb: 0.001 });
  });
  afterAll(async () => probe?.close());

  async function post(body: string, contentType: string | undefined): Promise<{ status: number; echo: ProbeEcho }> {
    const response = await fetch(`${probe.url}/v1/probe`, { method: 'POST', body, headers: contentType === undefined ? {} : { 'content-type': contentType } });
    return { status: response.status, echo: (await response.json()) as ProbeEcho };
  }

  it('parses a JSON body and keeps its exact bytes for passthrough', async () => {
    const text = '{ "model" : "gpt-4o-mini",\n  "unknown_field": [1, 2.50] }';
    const { status, echo } = await post(text, 'application/json; charset=utf-8');
    expect(status).toBe(200);
    expect(echo).toEqual({ body: { model: 'gpt-4o-mini', unknown_field: [1, 2.5] }, rawBody: text });
  });

  it('parses JSON sent without a JSON content type (curl -d)', async () => {
    const { status, echo } = await post('{"model":"m"}', 'application/x-www-form-urlencoded');
    expect(status).toBe(200);
    expect(echo.body).toEqual({ model: 'm' });
  });

  it('accepts a body just under max_body_mb', async () => {
    const limit = Math.floor(0.001 * 1024 * 1024);
    const text = JSON.stringify({ padding: 'x'.repeat(limit - 20) });
    expect(text.length).toBeLessThanOrEqual(limit);
    const { status } = await post(text, 'application/json');
    expect(status).toBe(200);
  });
});
