/**
 * Realtime edges (from the Realtime audit; docs/behaviour.md "Realtime"): handshakes `ws` would refuse are
 * refused before anything is held; responses still under way when the quota runs out are billed what the
 * balances cover; hostile frames; shutdown while a session is still being opened.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'a'.repeat(48)}`;
const tightKey = `sk-${'b'.repeat(48)}`;
const quotaPerUnit = 500_000;
const price = { input: 4, output: 16, cache_read: 0.4 };
const hold = (16_384 * price.input + 4_096 * price.output) * (quotaPerUnit / 1_000_000);
const chargeOf = (usage: { input: number; cached?: number; output: number }) => ((usage.input - (usage.cached ?? 0)) * price.input + (usage.cached ?? 0) * price.cache_read + usage.output * price.output) * (quotaPerUnit / 1_000_000);
const defaultCharge = chargeOf({ input: 120, cached: 20, output: 30 });

let upstream: FakeRealtimeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeRealtimeUpstream({ expectedKeys: ['sk-up-realtime'] });
  gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      retry_times: 0,
      prices: { 'gpt-realtime': price },
      channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: 'sk-up-realtime', priority: 0, model_mapping: {} }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [
        { name: 'main-key', user: 'u', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true },
        // Covers the first hold and leaves a bit less than a second one after one default response: still
        // plenty (hold - 1 units) to pay for several more default responses.
        { name: 'tight-key', user: 'u', key: tightKey, quota: hold + defaultCharge - 1, expires_at: 0, enabled: true },
      ],
    },
  });
}, 30_000);
afterAll(async () => {
  await gateway.close();
  await upstream.close();
}, 30_000);

const db = () => gateway.gateway.services.database.db;
async function openReservations(tokenName?: string): Promise<string[]> {
  const rows = await db().selectFrom('quota_reservations').innerJoin('tokens', 'tokens.id', 'quota_reservations.token_id').select(['quota_reservations.id as id', 'tokens.name as name']).where('quota_reservations.state', '=', 'reserved').execute();
  return rows.filter((row) => tokenName === undefined || row.name === tokenName).map((row) => row.id);
}
async function usedOf(name: string): Promise<number> {
  const row = await db().selectFrom('tokens').select('used_quota').where('name', '=', name).executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

/** A raw HTTP upgrade request written by hand; resolves with what the gateway answered. */
function rawUpgrade(lines: string[]): Promise<string> {
  const port = new URL(gateway.url).port;
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    setTimeout(() => socket.destroy(), 3_000);
  });
}

describe('Realtime: handshakes ws would refuse', () => {
  for (const [name, line0, extra] of [
    ['an unsupported Sec-WebSocket-Version', 'GET /v1/realtime?model=gpt-realtime HTTP/1.1', ['Sec-WebSocket-Version: 12', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==']],
    ['a POST upgrade', 'POST /v1/realtime?model=gpt-realtime HTTP/1.1', ['Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Content-Length: 0']],
    ['a duplicated subprotocol', 'GET /v1/realtime?model=gpt-realtime HTTP/1.1', ['Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol: realtime, realtime']],
  ] as const) {
    it(`are refused (400) before anything is held or opened upstream: ${name}`, async () => {
      const before = upstream.connections.length;
      const heldBefore = new Set(await openReservations());
      const answer = await rawUpgrade([line0, 'Host: 127.0.0.1', 'Connection: Upgrade', 'Upgrade: websocket', `Authorization: Bearer ${clientKey}`, ...extra]);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(upstream.connections.length).toBe(before);
      // Whatever the gateway answers, the session never started: nothing may stay held.
      await expect.poll(async () => (await openReservations()).filter((id) => !heldBefore.has(id)), { timeout: 4_000 }).toEqual([]);
      // And no upstream session may be left open for nobody.
      await expect.poll(() => upstream.connections.slice(before).every((connection) => connection.closed), { timeout: 4_000 }).toBe(true);
    });
  }
});

describe('Realtime: two responses under way when the next hold cannot be taken', () => {
  it('bills the second response the client received (the balance still covers it)', async () => {
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${tightKey}` } });
    const types: string[] = [];
    socket.on('message', (data: Buffer) => types.push((JSON.parse(data.toString('utf8')) as { type: string }).type));
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    await new Promise<void>((resolve, reject) => {
      socket.once('message', () => resolve());
      socket.once('error', reject);
    });
    // Two responses back to back (e.g. an out-of-band one): the gateway holds one.
    socket.send(JSON.stringify({ type: 'response.create' }));
    socket.send(JSON.stringify({ type: 'response.create' }));
    await closed;
    await expect.poll(() => openReservations('tight-key')).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The client received the first response whole, and the second one was started for it (and its text
    // relayed) before the session ended: a cut response is billed at the text it produced.
    expect(types.filter((type) => type === 'response.done').length).toBeGreaterThanOrEqual(1);
    expect(types.filter((type) => type === 'response.created').length).toBe(2);
    expect(types.filter((type) => type === 'response.output_text.delta').length).toBeGreaterThan(3);
    expect(await usedOf('tight-key')).toBeGreaterThan(defaultCharge);
  });
});

/** An upstream that takes `delayMs` before accepting the upgrade, then says session.created. */
async function startSlowUpstream(delayMs: number) {
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<WebSocket>();
  const server = createServer((_request, response) => response.writeHead(426).end());
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    setTimeout(() => {
      wss.handleUpgrade(request, socket, head, (ws) => {
        sockets.add(ws);
        ws.send(JSON.stringify({ type: 'session.created', session: {} }));
      });
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of sockets) ws.terminate();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('Realtime: hostile client frames', () => {
  it('survives an oversized frame and raw garbage, and settles each session', async () => {
    const open = async () => {
      const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${clientKey}` } });
      socket.on('error', () => undefined);
      const closed = new Promise<number>((resolve) => socket.once('close', resolve));
      await new Promise<void>((resolve) => socket.once('message', () => resolve()));
      return { socket, closed };
    };
    const leakedBefore = await openReservations('main-key');
    const big = await open();
    big.socket.send(Buffer.alloc(16 * 1024 * 1024 + 10, 0x61), { binary: true });
    expect(await big.closed).toBe(1009);
    const garbage = await open();
    (garbage.socket as unknown as { _socket: Duplex })._socket.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x00, 0x01]));
    expect(await garbage.closed).toBeGreaterThan(1000);
    await expect.poll(() => openReservations('main-key')).toEqual(leakedBefore);
    const after = await open();
    after.socket.close();
    await after.closed;
  });
});

describe('Realtime: shutdown while a session is being opened', () => {
  it('finishes shutting down and settles the hold of a session whose upstream was still being opened', async () => {
    const slow = await startSlowUpstream(800);
    const own = await startTestGateway({
      dialect: 'sqlite',
      config: {
        prices: { 'gpt-realtime': price },
        channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'slow', base_url: slow.url, key: 'sk-up-slow', priority: 0, model_mapping: {} }],
        users: [{ username: 'late', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
        tokens: [{ name: 'late-key', user: 'late', key: clientKey, quota: 1_000_000_000, expires_at: 0, enabled: true }],
      },
      env: { SHUTDOWN_TIMEOUT: '2' },
    });
    own.gateway.app.server.on('upgrade', (_req: IncomingMessage, sock: Duplex) => {
      const t = Date.now();
      sock.on('close', () => console.log('server-side socket closed after', Date.now() - t, 'ms'));
    });
    const timer = setInterval(() => console.log('inFlight', own.gateway.services.relay.inFlight.size), 1000);
    const socket = new WebSocket(`${own.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${clientKey}` } });
    socket.on('error', () => undefined);
    let opened = false;
    socket.on('open', () => (opened = true));
    const settle = (await import('vitest')).vi.spyOn(own.gateway.services.relay.ledger, 'settle');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Shutdown starts while the gateway is still opening the upstream session.
    const closing = own.gateway.close();
    const closedInTime = await Promise.race([closing.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000))]);
    clearInterval(timer);
    const settledHolds = settle.mock.calls.length;
    socket.terminate();
    await slow.close();
    // Shutdown must end (no session opened for a client that is gone, no request waiting forever), and the
    // session's hold must have been settled before the database closed.
    expect({ opened, closedInTime, settledHolds }).toEqual({ opened: false, closedInTime: true, settledHolds: 1 });
  }, 15_000);
});
