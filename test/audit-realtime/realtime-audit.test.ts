/**
 * Realtime audit probes (docs/behaviour.md "Realtime"), with a scripted upstream driven frame by frame
 * (the pattern of test/realtime/realtime-scripted-edges.test.ts) and raw `ws` clients.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const quotaPerUnit = 500_000;
const perToken = quotaPerUnit / 1_000_000;
const prices = { 'gpt-realtime': { input: 4, output: 16, cache_read: 0.4, audio_input: 32, audio_output: 64 } };
const key = `sk-${'z'.repeat(48)}`;

type Handler = (ws: WebSocket, event: Record<string, unknown>) => void;
let handler: Handler = () => undefined;
let upstreamUrl = '';
let closeUpstream: () => Promise<void>;
let gateway: TestGateway;
let n = 0;
const ev = (type: string, rest: Record<string, unknown> = {}) => JSON.stringify({ type, event_id: `event_${++n}`, ...rest });

beforeAll(async () => {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    const session = { id: 'sess_1', object: 'realtime.session', type: 'realtime', model: 'gpt-realtime', instructions: '' };
    ws.on('error', () => undefined);
    ws.on('message', (data) => handler(ws, JSON.parse(data.toString()) as Record<string, unknown>));
    ws.send(ev('session.created', { session }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeUpstream = () =>
    new Promise((resolve) => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.close(() => resolve());
    });
  gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      prices,
      channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstreamUrl, key: 'sk-up-realtime-audit2', priority: 0, model_mapping: {} }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'k', user: 'u', key, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
}, 30_000);
afterAll(async () => {
  await gateway?.close();
  await closeUpstream?.();
}, 30_000);
beforeEach(() => {
  handler = () => undefined;
});

const db = () => gateway.gateway.services.database.db;
async function used(): Promise<number> {
  await gateway.settled();
  const row = await db().selectFrom('tokens').select('used_quota').where('name', '=', 'k').executeTakeFirstOrThrow();
  return Number(row.used_quota);
}
async function held(): Promise<number> {
  const rows = await db().selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute();
  return rows.length;
}
async function lastLogId(): Promise<number> {
  const row = await db().selectFrom('logs').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row === undefined ? 0 : Number(row.id);
}
async function logsSince(id: number) {
  await gateway.settled();
  return db().selectFrom('logs').selectAll().where('style', '=', 'openai-realtime').where('id', '>', id).orderBy('id').execute();
}
async function reservationAmount(id: string): Promise<number> {
  const row = await db().selectFrom('quota_reservations').select('amount').where('id', '=', id).executeTakeFirstOrThrow();
  return Number(row.amount);
}

async function open(): Promise<{ socket: WebSocket; types: string[]; closed: Promise<number> }> {
  const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${key}` } });
  const types: string[] = [];
  socket.on('error', () => undefined);
  socket.on('message', (data: Buffer) => {
    try {
      types.push((JSON.parse(data.toString()) as { type: string }).type);
    } catch {
      types.push('<unparsable>');
    }
  });
  const closed = new Promise<number>((resolve) => socket.once('close', resolve));
  await new Promise<void>((resolve, reject) => {
    socket.once('message', () => resolve());
    socket.once('error', reject);
  });
  return { socket, types, closed };
}

const delta = (responseId: string, text: string) => ev('response.output_text.delta', { response_id: responseId, item_id: `item_${responseId}`, output_index: 0, content_index: 0, delta: text });
const created = (responseId: string) => ev('response.created', { response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] } });
const done = (responseId: string, usage: unknown) => ev('response.done', { response: { id: responseId, object: 'realtime.response', status: 'completed', output: [], usage } });
const settleTime = () => new Promise((resolve) => setTimeout(resolve, 400));

describe('realtime audit: upstream protocol failure', () => {
  it('an upstream that breaks the WebSocket protocol (invalid UTF-8 text frame) ends the client session as a failure (1011), not a normal close (1000)', async () => {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      ws.send(created('resp_u'));
      ws.send(delta('resp_u', 'Some text before the upstream breaks. '));
      // A text frame that is not UTF-8: the gateway's ws receiver fails the upstream connection (1007).
      ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    };
    const since = await lastLogId();
    const { socket, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    const code = await closed;
    await expect.poll(() => held(), { timeout: 12_000 }).toBe(0);
    const rows = await logsSince(since);
    // The cut response is billed (499, local count): that part is right.
    expect(rows.some((row) => Number(row.status) === 499)).toBe(true);
    // docs/behaviour.md: "The upstream's close code reaches the client (1011 when it is not one that may be
    // sent)" — the upstream failed; a client told 1000 believes the session ended normally.
    expect(code).toBe(1011);
  }, 20_000);
});

describe('realtime audit: usage that cannot be priced', () => {
  it('a response.done whose usage counts are absurd (beyond 2^53) is charged the hold, as documented, not the local text count', async () => {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      ws.send(created('resp_a'));
      ws.send(delta('resp_a', 'Hi.'));
      ws.send(
        done('resp_a', {
          total_tokens: 1e16 + 10,
          input_tokens: 1e16,
          output_tokens: 10,
          input_token_details: { text_tokens: 1e16, audio_tokens: 0, cached_tokens: 0 },
          output_token_details: { text_tokens: 10, audio_tokens: 0 },
        }),
      );
    };
    const since = await lastLogId();
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    await expect.poll(() => types.includes('response.done')).toBe(true);
    await settleTime();
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    const rows = await logsSince(since);
    const first = rows[0];
    expect(first).toBeDefined();
    const hold = await reservationAmount(String(first?.request_id));
    // docs/behaviour.md "Realtime": "usage that cannot be priced (absurd counts) is charged the hold".
    expect((await used()) - before).toBe(hold);
  }, 15_000);
});

describe('realtime audit: prices of a response.done', () => {
  it('bills cached text, cached audio, uncached audio and output audio each at its price', async () => {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      ws.send(created('resp_p'));
      ws.send(
        done('resp_p', {
          total_tokens: 1_300,
          input_tokens: 1_000,
          output_tokens: 300,
          input_token_details: { text_tokens: 400, audio_tokens: 600, cached_tokens: 500, cached_tokens_details: { text_tokens: 300, audio_tokens: 200 } },
          output_token_details: { text_tokens: 100, audio_tokens: 200 },
        }),
      );
    };
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    await expect.poll(() => types.includes('response.done')).toBe(true);
    await settleTime();
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    // uncached: 500 = 100 text + 400 audio; cached 500 at cache_read; output 100 text + 200 audio.
    const expected = (100 * 4 + 400 * 32 + 500 * 0.4 + 100 * 16 + 200 * 64) * perToken;
    expect((await used()) - before).toBe(expected);
  }, 15_000);
});

describe('realtime audit: a client that leaves during an out-of-band response', () => {
  it('cancels the response by its id and bills the usage the upstream reports for it', async () => {
    // OpenAI: response.cancel without `response_id` cancels "an in-progress response in the default
    // conversation"; an out-of-band response (conversation: "none") is cancelled only by its id.
    const cancels: unknown[] = [];
    handler = (ws, event) => {
      if (event.type === 'response.create') {
        ws.send(created('resp_oob'));
        for (const text of ['An out-of-band answer ', 'that is still being written ', 'when the client leaves.']) ws.send(delta('resp_oob', text));
        return;
      }
      if (event.type === 'response.cancel') {
        cancels.push(event.response_id);
        if (event.response_id === 'resp_oob') {
          ws.send(
            done('resp_oob', { total_tokens: 2_060, input_tokens: 2_000, output_tokens: 60, input_token_details: { text_tokens: 2_000, audio_tokens: 0, cached_tokens: 0 }, output_token_details: { text_tokens: 60, audio_tokens: 0 } }),
          );
        } else {
          ws.send(ev('error', { error: { type: 'invalid_request_error', code: 'response_cancel_not_active', message: 'Cancellation failed: no active response found.', param: null, event_id: null } }));
        }
      }
    };
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create', response: { conversation: 'none' } }));
    await expect.poll(() => types.filter((type) => type === 'response.output_text.delta').length).toBe(3);
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 15_000 }).toBe(0);
    await settleTime();
    expect.soft(cancels, 'the response.cancel the gateway sent upstream').toContain('resp_oob');
    expect((await used()) - before).toBe((2_000 * 4 + 60 * 16) * perToken);
  }, 25_000);
});
