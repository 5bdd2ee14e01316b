/**
 * A side that does not read what it is sent (docs/behaviour.md "Realtime"): the gateway holds at most
 * `maxBufferedRealtimeBytes` unsent for either side, then ends the session and bills it as cut. The bound is
 * shrunk to 1 MiB here (64 MiB in the gateway) so the test moves a few megabytes, not hundreds.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { listenRealtimeUpstream } from './listen-realtime-upstream.js';
import { realtimeLedgerReads } from './realtime-ledger-reads.js';

vi.mock('../../src/relay/realtime/connect-realtime-upstream.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/relay/realtime/connect-realtime-upstream.js')>()),
  maxBufferedRealtimeBytes: 1024 * 1024,
}));

const quotaPerUnit = 500_000;
const perToken = quotaPerUnit / 1_000_000;
const key = `sk-${'b'.repeat(48)}`;
/** Far beyond the bound and the kernel's socket buffers (loopback autotunes up to 32 MB): a gateway that never cuts off takes it all. */
const floodLimit = 96 * 1024 * 1024;
const chunk = Buffer.alloc(256 * 1024, 0x61);

type Handler = (ws: WebSocket, event: Record<string, unknown>) => void;
let handler: Handler = () => undefined;
let onConnection: (ws: WebSocket) => void = () => undefined;
let closeUpstream: () => Promise<void>;
let gateway: TestGateway;
let n = 0;
const ev = (type: string, rest: Record<string, unknown> = {}) => JSON.stringify({ type, event_id: `event_${++n}`, ...rest });
const raw = (ws: WebSocket) => (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
const sendAsync = (ws: WebSocket, data: Buffer | string, binary: boolean) => new Promise<void>((resolve) => ws.send(data, { binary }, () => resolve()));

beforeAll(async () => {
  const upstream = await listenRealtimeUpstream((ws) => {
    ws.on('error', () => undefined);
    ws.on('message', (data, isBinary) => {
      if (!isBinary) handler(ws, JSON.parse(data.toString()) as Record<string, unknown>);
    });
    ws.send(ev('session.created', { session: { id: 'sess_1', object: 'realtime.session', type: 'realtime', model: 'gpt-realtime' } }));
    onConnection(ws);
  });
  const upstreamUrl = upstream.url;
  closeUpstream = upstream.close;
  gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      prices: { 'gpt-realtime': { input: 4, output: 16 } },
      channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstreamUrl, key: 'sk-up-realtime-bp', priority: 0, model_mapping: {} }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'k', user: 'u', key, quota: 0, unlimited_quota: true, expires_at: 0, enabled: true }],
    },
  });
}, 30_000);
afterAll(async () => {
  await gateway?.close();
  await closeUpstream?.();
}, 30_000);

const { db, used, held, lastLogId } = realtimeLedgerReads(() => gateway);
async function open(): Promise<{ socket: WebSocket; types: string[]; closed: Promise<number> }> {
  const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${key}` } });
  const types: string[] = [];
  socket.on('error', () => undefined);
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) types.push((JSON.parse(data.toString()) as { type: string }).type);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', resolve));
  await new Promise<void>((resolve, reject) => {
    socket.once('message', () => resolve());
    socket.once('error', reject);
  });
  return { socket, types, closed };
}
const created = (id: string) => ev('response.created', { response: { id, object: 'realtime.response', status: 'in_progress', output: [] } });
const delta = (id: string, text: string) => ev('response.output_text.delta', { response_id: id, item_id: `item_${id}`, output_index: 0, content_index: 0, delta: text });

describe('realtime: a side that does not read', () => {
  it('cuts off a client that reads nothing while the upstream streams, and bills the response the upstream reports as cancelled', async () => {
    let sent = 0;
    let cancelled: unknown;
    handler = (ws, event) => {
      if (event.type === 'response.create') {
        ws.send(created('resp_f'));
        ws.send(delta('resp_f', 'Audio follows. '));
        void (async () => {
          // Binary frames stand in for the audio deltas of a long answer.
          while (ws.readyState === WebSocket.OPEN && cancelled === undefined && sent < floodLimit) {
            await sendAsync(ws, chunk, true);
            sent += chunk.length;
          }
        })();
        return;
      }
      if (event.type === 'response.cancel') {
        cancelled = event.response_id;
        ws.send(ev('response.done', { response: { id: 'resp_f', object: 'realtime.response', status: 'cancelled', output: [], usage: { input_tokens: 3_000, output_tokens: 400 } } }));
      }
    };
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    await expect.poll(() => types.includes('response.output_text.delta')).toBe(true);
    raw(socket).pause();
    await expect.poll(() => cancelled !== undefined || sent >= floodLimit, { timeout: 20_000 }).toBe(true);
    expect(sent, 'bytes the upstream could push at a client that reads nothing').toBeLessThan(floodLimit);
    raw(socket).resume();
    await closed;
    await expect.poll(() => held(), { timeout: 10_000 }).toBe(0);
    expect(cancelled).toBe('resp_f');
    expect((await used()) - before).toBe((3_000 * 4 + 400 * 16) * perToken);
  }, 40_000);

  it('ends with 1008 a session whose client sends far faster than the upstream reads, and bills the response it cut', async () => {
    onConnection = (ws) => {
      // The upstream starts a response, then reads nothing more.
      ws.send(created('resp_s'));
      ws.send(delta('resp_s', 'Then silence. '));
      raw(ws).pause();
    };
    const since = await lastLogId();
    const { socket, types, closed } = await open();
    let code: number | undefined;
    void closed.then((value) => (code = value));
    await expect.poll(() => types.includes('response.output_text.delta')).toBe(true);
    let sent = 0;
    while (code === undefined && socket.readyState === WebSocket.OPEN && sent < floodLimit) {
      await sendAsync(socket, chunk, true);
      sent += chunk.length;
    }
    onConnection = () => undefined;
    expect(sent, 'bytes a client could push at an upstream that reads nothing').toBeLessThan(floodLimit);
    await closed;
    expect(code).toBe(1008);
    await expect.poll(() => held(), { timeout: 10_000 }).toBe(0);
    await gateway.settled();
    const rows = await db().selectFrom('logs').selectAll().where('style', '=', 'openai-realtime').where('id', '>', since).execute();
    expect(rows.map((row) => Number(row.status))).toContain(499);
  }, 40_000);
});
