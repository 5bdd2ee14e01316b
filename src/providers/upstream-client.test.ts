import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readBodyChunks } from '../relay/read-body-chunks.js';
import { ClientAbortSignal } from './client-abort-signal.js';
import { contentTypeOf, UpstreamClient, upstreamConnectionsPerOrigin } from './upstream-client.js';

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

  it('fails a 3xx answer (it follows no redirect), drops the connection without reading the body, and lets go of the signal', async () => {
    let upstreamClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    // An endless redirect body: reading it would never end.
    const { server, url } = await listen((request, response) => {
      request.socket.on('close', upstreamClosed);
      response.writeHead(301, { location: 'https://user:pass@moved.example.com/v1/chat?key=secret', 'content-type': 'text/html' });
      const timer = setInterval(() => response.write('x'.repeat(16_384)), 5);
      response.on('close', () => clearInterval(timer));
    });
    const client = new UpstreamClient(timeouts);
    track(server, client);
    const signal = new ClientAbortSignal();
    const result = await client.send({ url: `${url}/v1/chat/completions`, method: 'POST', headers: {}, body: '{}', signal });
    expect(result).toEqual({ ok: false, failure: { kind: 'status', status: 502, message: expect.stringMatching(/^The upstream answered a redirect \(HTTP 301\)/), detail: '(location: https://***:***@moved.example.com/v1/chat)' } });
    await closed;
    expect(signal.listenerCount('abort')).toBe(0);
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

  it('delivers a large body through a reader that pauses, reading the socket again after each pause', async () => {
    // 2 MB in 16 KB writes: far above the body's 64 KB high-water mark, so undici must stop and go on.
    const piece = Buffer.alloc(16 * 1024, 'x');
    const pieces = 128;
    const { server, url } = await listen((_request, response) => {
      let written = 0;
      const writeMore = () => {
        while (written < pieces) {
          written += 1;
          if (!response.write(piece)) return void response.once('drain', writeMore);
        }
        response.end();
      };
      writeMore();
    });
    const client = new UpstreamClient(timeouts);
    track(server, client);
    const sent = await client.send({ url: `${url}/big`, method: 'POST', headers: {}, body: '{}', signal: new ClientAbortSignal() });
    if (!sent.ok) throw new Error(sent.failure.message);
    let received = 0;
    let pauses = 0;
    const ending = await readBodyChunks(sent.response.body, (chunk) => {
      received += chunk.length;
      // A slow client: every fourth chunk waits a moment before the next.
      if (received % 4 !== 0 || pauses > 50) return undefined;
      pauses += 1;
      return new Promise<void>((resolve) => setTimeout(resolve, 2));
    });
    expect(ending).toBe('ended');
    expect(received).toBe(piece.length * pieces);
  });

  it('closes the upstream connection when the body is dropped before its end, and reuses it after a full read', async () => {
    const sockets = new Set<unknown>();
    const closedSockets = new Set<unknown>();
    const { server, url } = await listen((request, response) => {
      if (!sockets.has(request.socket)) request.socket.once('close', () => closedSockets.add(request.socket));
      sockets.add(request.socket);
      if (request.url === '/endless') {
        response.write('data: 1\n\n');
        return; // never ends
      }
      response.end('{"ok":true}');
    });
    const client = new UpstreamClient(timeouts);
    track(server, client);
    const send = (path: string) => client.send({ url: `${url}${path}`, method: 'POST', headers: {}, body: '{}', signal: new ClientAbortSignal() });
    for (let index = 0; index < 20; index += 1) {
      const sent = await send('/whole');
      if (sent.ok) expect(await sent.response.body.text()).toBe('{"ok":true}');
    }
    // Twenty calls read to the end, one after the other, on kept-alive connections (undici may open a
    // second while the first is being released), none closed.
    expect(sockets.size).toBeLessThanOrEqual(2);
    expect(closedSockets.size).toBe(0);
    const endless = await send('/endless');
    if (!endless.ok) throw new Error(endless.failure.message);
    expect(await readBodyChunks(endless.response.body, () => 'stop')).toBe('stopped');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Dropped half-read: its connection is closed, not returned to the pool.
    expect(closedSockets.size).toBe(1);
    const after = await send('/whole');
    if (after.ok) expect(await after.response.body.text()).toBe('{"ok":true}');
  });
});

describe('contentTypeOf', () => {
  const raw = (...pairs: string[]) => pairs.map((text) => Buffer.from(text, 'latin1'));

  it('finds the content type whatever the name\'s case, and only that header', () => {
    expect(contentTypeOf(raw('X-Request-Id', 'req-1', 'Content-Type', 'text/event-stream; charset=utf-8', 'content-type', 'application/json'))).toBe('text/event-stream; charset=utf-8');
    expect(contentTypeOf(raw('CONTENT-TYPE', 'application/json'))).toBe('application/json');
    // Same length as content-type, different name.
    expect(contentTypeOf(raw('x-request-id', 'application/json', 'content-types', 'text/plain', 'content_type', 'text/plain'))).toBe('');
    expect(contentTypeOf([])).toBe('');
  });

  it('reads the content type of a real response through the client', async () => {
    const server = createServer((_request, response) => {
      response.setHeader('X-Request-Id', 'abc');
      response.setHeader('Content-Type', 'application/x-ndjson');
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new UpstreamClient(timeouts);
    try {
      const result = await client.send({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, method: 'POST', headers: {}, body: '{}', signal: new ClientAbortSignal() });
      expect(result.ok && result.response.contentType).toBe('application/x-ndjson');
      if (result.ok) await result.response.body.text();
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
