import { connect } from 'node:net';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { readEnvironment } from '../../src/config/read-environment.js';
import { startGateway, type Gateway } from '../../src/main.js';
import { testAdminKey } from '../support/start-test-gateway.js';
import { createTestDatabase } from '../support/test-databases.js';

export interface ProbeGateway {
  gateway: Gateway;
  url: string;
  close(): Promise<void>;
}

/** What the probe route saw of a request body. */
export interface ProbeEcho {
  body: unknown;
  rawBody: string | null;
}

/**
 * The real gateway (real config, body limit, parser and error handler) plus one test-only POST route,
 * `/v1/probe`, registered before the server listens: no relay route accepts a body yet.
 */
export async function startProbeGateway(config: ConfigFile = {}): Promise<ProbeGateway> {
  const database = await createTestDatabase('sqlite');
  const environment = readEnvironment({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', CRYPTO_SECRET: 'probe-secret', SYNC_FREQUENCY: '0' });
  const gateway = await startGateway({ environment, config: { admin_key: testAdminKey, ...config }, announce: () => undefined, listen: false });
  gateway.app.post('/v1/probe', async (request): Promise<ProbeEcho> => ({ body: request.body ?? null, rawBody: request.rawBody?.toString('utf8') ?? null }));
  const url = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    gateway,
    url,
    async close() {
      await gateway.close();
      await database.drop();
    },
  };
}

export interface RawResponseHead {
  statusLine: string;
  headers: Record<string, string>;
  elapsedMs: number;
}

/**
 * Sends a request head and part of a body over a plain socket, never finishing the body, and resolves
 * with the response head. Rejects when no answer arrives within `timeoutMs`.
 */
export function sendUnfinishedRequest(url: string, head: string, bodyChunks: string[], timeoutMs: number): Promise<RawResponseHead> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no response within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('error', (error) => {
      // The server may reset the connection after answering; only a reset before any answer is a failure.
      if (!received.includes('\r\n\r\n')) {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on('connect', () => {
      socket.write(head);
      for (const chunk of bodyChunks) socket.write(chunk);
    });
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      const [statusLine = '', ...headerLines] = received.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      socket.destroy();
      resolve({ statusLine, headers, elapsedMs: Date.now() - started });
    });
  });
}
