import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientAbortSignal } from './client-abort-signal.js';
import { UpstreamClient, upstreamConnectionsPerOrigin } from './upstream-client.js';

const timeouts = { connectMs: 5_000, firstByteMs: 10_000, idleMs: 10_000 };

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('UpstreamClient', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function track(server: Server, client: UpstreamClient): void {
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    cleanups.push(() => client.close());
  }

  it('drops the upstream connection at once when the client abort signal fires before the first byte', async () => {
    let upstreamClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    // Never answers: only the abort can end the wait.
    const { server, url } = await listen((request) => request.socket.on('close', upstreamClosed));
    const client = new UpstreamClient(timeouts);
    track(server, client);
    const signal = new ClientAbortSignal();
    const startedAt = Date.now();
    const sent = client.send({ url: `${url}/v1/chat/completions`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal });
    setTimeout(() => signal.abort(), 100);
    const result = await sent;
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure.kind).toBe('connection');
    await closed;
    expect(Date.now() - startedAt).toBeLessThan(2_000);
  });

  it('refuses to start a request whose signal already fired', async () => {
    let calls = 0;
    const { server, url } = await listen((_request, response) => {
      calls += 1;
      response.end('{}');
    });
    const client = new UpstreamClient(timeouts);
    track(server, client);
    const signal = new ClientAbortSignal();
    signal.abort();
    const result = await client.send({ url: `${url}/x`, method: 'POST', headers: {}, body: '{}', signal });
    expect(result.ok).toBe(false);
    expect(calls).toBe(0);
  });

  it('holds far more than 256 requests open to one origin at once (slow streams do not queue)', async () => {
    expect(upstreamConnectionsPerOrigin).toBeGreaterThanOrEqual(1024);
    const concurrent = 300;
    const waiting: ServerResponse[] = [];
    // Answers nobody until all of them are in: with 256 connections per origin this would never happen.
    const { server, url } = await listen((_request, response) => {
      waiting.push(response);
      if (waiting.length === concurrent) for (const held of waiting) held.end('{"ok":true}');
    });
    const client = new UpstreamClient(timeouts);
    track(server, client);
    const results = await Promise.all(
      Array.from({ length: concurrent }, async () => {
        const sent = await client.send({ url: `${url}/v1/chat/completions`, method: 'POST', headers: {}, body: '{}', signal: new ClientAbortSignal() });
        if (!sent.ok) return sent.failure.message;
        return sent.response.body.text();
      }),
    );
    expect(results.every((text) => text === '{"ok":true}')).toBe(true);
  }, 20_000);

  it('sends to the path and query of the URL it is given', async () => {
    const seen: string[] = [];
    const { server, url } = await listen((request, response) => {
      seen.push(request.url ?? '');
      response.end('{}');
    });
    const client = new UpstreamClient(timeouts);
    track(server, client);
    for (const path of ['/v1/chat/completions', '/v1beta/models/gemini:streamGenerateContent?alt=sse', '/v1/chat/completions']) {
      const sent = await client.send({ url: `${url}${path}`, method: 'POST', headers: {}, body: '{}', signal: new ClientAbortSignal() });
      if (sent.ok) await sent.response.body.text();
    }
    expect(seen).toEqual(['/v1/chat/completions', '/v1beta/models/gemini:streamGenerateContent?alt=sse', '/v1/chat/completions']);
  });
});
