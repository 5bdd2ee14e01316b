/**
 * From the second realtime audit (docs/behaviour.md "Realtime"), with a scripted upstream driven frame by
 * frame and raw `ws` clients: a client that leaves during an out-of-band response gets that response
 * cancelled by its id and billed at the usage the upstream reports; usage whose counts are no token counts
 * (beyond 2^53, negative) is charged the hold and moves no tokens window past it, fractional counts are
 * floored; an upstream that breaks the WebSocket protocol closes the client with 1011.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { maxRealtimeFrameBytes } from '../../src/relay/realtime/connect-realtime-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { listenRealtimeUpstream } from './listen-realtime-upstream.js';
import { realtimeLedgerReads } from './realtime-ledger-reads.js';

const quotaPerUnit = 500_000;
const perToken = quotaPerUnit / 1_000_000;
const prices = { 'gpt-realtime': { input: 4, output: 16, cache_read: 0.4 } };
const key = `sk-${'z'.repeat(48)}`;
/** A key with a tokens-per-minute limit, one per test that reads its window (windows outlive a test). */
const windowKeys = [`sk-${'w'.repeat(48)}`, `sk-${'v'.repeat(48)}`];
const tpm = 100_000_000;

type Handler = (ws: WebSocket, event: Record<string, unknown>) => void;
let handler: Handler = () => undefined;
let upstreamUrl = '';
let closeUpstream: () => Promise<void>;
let gateway: TestGateway;
let n = 0;
const ev = (type: string, rest: Record<string, unknown> = {}) => JSON.stringify({ type, event_id: `event_${++n}`, ...rest });

beforeAll(async () => {
  const upstream = await listenRealtimeUpstream((ws) => {
    const session = { id: 'sess_1', object: 'realtime.session', type: 'realtime', model: 'gpt-realtime', instructions: '' };
    ws.on('error', () => undefined);
    ws.on('message', (data) => handler(ws, JSON.parse(data.toString()) as Record<string, unknown>));
    ws.send(ev('session.created', { session }));
  });
  upstreamUrl = upstream.url;
  closeUpstream = upstream.close;
  gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      prices,
      realtime_hold_input_tokens: 1_000,
      channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstreamUrl, key: 'sk-up-realtime-audit2', priority: 0, model_mapping: {} }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [
        { name: 'k', user: 'u', key, quota: 1_000_000_000_000, expires_at: 0, enabled: true },
        ...windowKeys.map((windowKey, index) => ({ name: `w${index}`, user: 'u', key: windowKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true, rate_limit: { tpm } })),
      ],
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

const { db, used, held, lastLogId, logsSince } = realtimeLedgerReads(() => gateway);
async function reservationAmount(id: string): Promise<number> {
  const row = await db().selectFrom('quota_reservations').select('amount').where('id', '=', id).executeTakeFirstOrThrow();
  return Number(row.amount);
}
/** The tokens counted in a key's tokens-per-minute window (a zero-cost check reads it without adding). */
async function tokensInWindow(name: string): Promise<number> {
  const services = gateway.gateway.services;
  const token = await db().selectFrom('tokens').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  const decision = await services.relay.rateLimiter.consume([{ key: `token:${token.id}:tpm`, limit: tpm, windowSeconds: 60, cost: 0, kind: 'tokens' }], services.relay.now());
  return tpm - (decision.states[0]?.remaining ?? 0);
}

async function open(apiKey = key): Promise<{ socket: WebSocket; types: string[]; closed: Promise<number> }> {
  const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${apiKey}` } });
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
const created = (responseId: string | undefined) => ev('response.created', { response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] } });
const done = (responseId: string | undefined, usage: unknown) => ev('response.done', { response: { id: responseId, object: 'realtime.response', status: 'completed', output: [], usage } });
const usageOf = (input: number, output: number) => ({ total_tokens: input + output, input_tokens: input, output_tokens: output, input_token_details: { text_tokens: input, audio_tokens: 0, cached_tokens: 0 }, output_token_details: { text_tokens: output, audio_tokens: 0 } });
const settleTime = () => new Promise((resolve) => setTimeout(resolve, 400));
const notActive = () => ev('error', { error: { type: 'invalid_request_error', code: 'response_cancel_not_active', message: 'Cancellation failed: no active response found.', param: null, event_id: null } });

describe('realtime: a client that leaves mid-response', () => {
  it('cancels an out-of-band response by its id and bills the usage the upstream reports for it', async () => {
    // OpenAI: response.cancel without `response_id` cancels "an in-progress response in the default
    // conversation"; an out-of-band response (conversation: "none") is cancelled only by its id.
    const cancels: unknown[] = [];
    handler = (ws, event) => {
      if (event.type === 'response.create') {
        ws.send(created('resp_oob'));
        for (const text of ['An out-of-band answer ', 'that is still being written ', 'when the client leaves.']) ws.send(delta('resp_oob', text));
        return;
      }
      if (event.type !== 'response.cancel') return;
      cancels.push(event.response_id);
      ws.send(event.response_id === 'resp_oob' ? done('resp_oob', usageOf(2_000, 60)) : notActive());
    };
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create', response: { conversation: 'none' } }));
    await expect.poll(() => types.filter((type) => type === 'response.output_text.delta').length).toBe(3);
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 15_000 }).toBe(0);
    await settleTime();
    expect(cancels, 'the response.cancel events the gateway sent upstream').toEqual(['resp_oob']);
    expect((await used()) - before).toBe((2_000 * 4 + 60 * 16) * perToken);
  }, 25_000);

  it('cancels a default and an out-of-band response under way at once, each by its id, and bills both', async () => {
    const cancels: unknown[] = [];
    handler = (ws, event) => {
      if (event.type === 'response.create') {
        const id = (event.response as { conversation?: string } | undefined)?.conversation === 'none' ? 'resp_side' : 'resp_main';
        ws.send(created(id));
        ws.send(delta(id, `Text of ${id}. `));
        return;
      }
      if (event.type !== 'response.cancel') return;
      cancels.push(event.response_id);
      if (event.response_id === 'resp_main') ws.send(done('resp_main', usageOf(1_000, 20)));
      else if (event.response_id === 'resp_side') ws.send(done('resp_side', usageOf(500, 10)));
      else ws.send(notActive());
    };
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    socket.send(JSON.stringify({ type: 'response.create', response: { conversation: 'none' } }));
    await expect.poll(() => types.filter((type) => type === 'response.output_text.delta').length).toBe(2);
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 15_000 }).toBe(0);
    await settleTime();
    expect(cancels.sort()).toEqual(['resp_main', 'resp_side']);
    expect((await used()) - before).toBe((1_500 * 4 + 30 * 16) * perToken);
  }, 25_000);

  it('still sends a cancel without an id for a response whose id it never saw', async () => {
    const cancels: unknown[] = [];
    handler = (ws, event) => {
      if (event.type === 'response.create') {
        ws.send(created(undefined));
        ws.send(ev('response.output_text.delta', { item_id: 'item_x', output_index: 0, content_index: 0, delta: 'No id anywhere.' }));
        return;
      }
      if (event.type !== 'response.cancel') return;
      cancels.push(event.response_id ?? 'no id');
      ws.send(event.response_id === undefined ? done(undefined, usageOf(700, 5)) : notActive());
    };
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    await expect.poll(() => types.filter((type) => type === 'response.output_text.delta').length).toBe(1);
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 15_000 }).toBe(0);
    await settleTime();
    expect(cancels).toEqual(['no id']);
    expect((await used()) - before).toBe((700 * 4 + 5 * 16) * perToken);
  }, 25_000);
});

describe('realtime: a client that leaves before the upstream named its response', () => {
  it('cancels the response it asked for without an id, waits for its response.done, and bills it', async () => {
    // The upstream names the response (response.created) only after the client has gone: the gateway
    // relayed the response.create, so the response is under way upstream all the same.
    const cancels: unknown[] = [];
    let cancelled = false;
    let createdSent = false;
    let doneSent = false;
    const sendDone = (ws: WebSocket) => {
      doneSent = true;
      ws.send(done('resp_late', usageOf(1_200, 40)));
    };
    handler = (ws, event) => {
      if (event.type === 'response.create') {
        setTimeout(() => {
          if (ws.readyState !== WebSocket.OPEN) return;
          createdSent = true;
          ws.send(created('resp_late'));
          ws.send(delta('resp_late', 'A late answer.'));
          if (cancelled && !doneSent) sendDone(ws);
        }, 600);
        return;
      }
      if (event.type !== 'response.cancel') return;
      cancels.push(event.response_id ?? 'no id');
      cancelled = true;
      if (createdSent && !doneSent) sendDone(ws);
      else if (doneSent) ws.send(notActive());
    };
    const since = await lastLogId();
    const before = await used();
    const { socket, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 15_000 }).toBe(0);
    await settleTime();
    // The cancel without an id, then (once the response is named) one by its id too.
    expect(cancels, 'the response.cancel events the gateway sent upstream').toEqual(['no id', 'resp_late']);
    expect(doneSent).toBe(true);
    expect((await used()) - before).toBe((1_200 * 4 + 40 * 16) * perToken);
    const rows = await logsSince(since);
    expect(rows.map((row) => Number(row.status))).toEqual([200]);
  }, 25_000);

  it('cancels an out-of-band response by its id once the upstream names it, and bills it', async () => {
    // A cancel without an id stops only the default conversation's response: this one runs on until
    // it is cancelled by its id.
    const cancels: unknown[] = [];
    let doneSent = false;
    handler = (ws, event) => {
      if (event.type === 'response.create') {
        setTimeout(() => {
          if (ws.readyState !== WebSocket.OPEN) return;
          ws.send(created('resp_late_oob'));
          ws.send(delta('resp_late_oob', 'A late side answer.'));
        }, 600);
        return;
      }
      if (event.type !== 'response.cancel') return;
      cancels.push(event.response_id ?? 'no id');
      if (event.response_id === 'resp_late_oob' && !doneSent) {
        doneSent = true;
        ws.send(done('resp_late_oob', usageOf(900, 30)));
      } else ws.send(notActive());
    };
    const before = await used();
    const { socket, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create', response: { conversation: 'none' } }));
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 15_000 }).toBe(0);
    await settleTime();
    expect(cancels).toEqual(['no id', 'resp_late_oob']);
    expect((await used()) - before).toBe((900 * 4 + 30 * 16) * perToken);
  }, 25_000);

  it('waits for nothing once the upstream refused the response.create (an error naming its event id)', async () => {
    handler = (ws, event) => {
      if (event.type === 'response.create') ws.send(ev('error', { error: { type: 'invalid_request_error', code: 'conversation_already_has_active_response', message: 'Conversation already has an active response.', param: null, event_id: event.event_id } }));
    };
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create', event_id: 'evt_refused' }));
    await expect.poll(() => types.includes('error')).toBe(true);
    const before = await used();
    const leftAt = Date.now();
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 15_000 }).toBe(0);
    // Settled as soon as the upstream closed, not after the 5 s a cancelled response is given.
    expect(Date.now() - leftAt).toBeLessThan(4_000);
    expect((await used()) - before).toBe(0);
  }, 25_000);
});

describe('realtime: usage that cannot be priced', () => {
  /** Runs one response that ends with `usage`; what the session charged, its first log row and the window before and after. */
  async function respond(usage: unknown, windowKey: string | undefined) {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      ws.send(created('resp_a'));
      ws.send(delta('resp_a', 'Hi.'));
      ws.send(done('resp_a', usage));
    };
    const since = await lastLogId();
    const before = await used();
    const { socket, types, closed } = await open(windowKey);
    socket.send(JSON.stringify({ type: 'response.create' }));
    await expect.poll(() => types.includes('response.done')).toBe(true);
    await settleTime();
    // While the session is open its window holds the admission's estimate: the tokens one hold covers.
    const windowOpen = windowKey === undefined ? 0 : await tokensInWindow(`w${windowKeys.indexOf(windowKey)}`);
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    await settleTime();
    const windowAfter = windowKey === undefined ? 0 : await tokensInWindow(`w${windowKeys.indexOf(windowKey)}`);
    const rows = await logsSince(since);
    const row = rows[0];
    expect(row).toBeDefined();
    return { charged: (await used()) - before, hold: await reservationAmount(String(row?.request_id)), row, windowOpen, windowAfter };
  }

  it('charges the hold for counts beyond 2^53, as documented, not the local text count; the window takes the hold\'s tokens', async () => {
    const huge = { total_tokens: 1e16 + 10, input_tokens: 1e16, output_tokens: 10, input_token_details: { text_tokens: 1e16, audio_tokens: 0, cached_tokens: 0 }, output_token_details: { text_tokens: 10, audio_tokens: 0 } };
    const { charged, hold, row, windowOpen, windowAfter } = await respond(huge, windowKeys[0]);
    expect(charged).toBe(hold);
    expect(hold).toBeGreaterThan(0);
    // The log keeps no count its integer columns cannot take; a warning says what was reported.
    expect(Number(row?.input_tokens)).toBe(0);
    expect(String(row?.warnings)).toContain('charged the hold');
    // Neither poisoned (uncorrectable) nor refunded: the window ends at the hold's tokens.
    expect(windowOpen).toBeGreaterThan(0);
    expect(windowAfter).toBe(windowOpen);
  }, 15_000);

  it('charges the hold for a negative count, and gives the tokens window nothing back for it', async () => {
    const { charged, hold, windowOpen, windowAfter } = await respond({ total_tokens: -999_990, input_tokens: -1_000_000, output_tokens: 10 }, windowKeys[1]);
    expect(charged).toBe(hold);
    expect(windowOpen).toBeGreaterThan(0);
    expect(windowAfter).toBe(windowOpen);
  }, 15_000);

  it('floors fractional counts and bills them at their price', async () => {
    const { charged } = await respond({ total_tokens: 110.9, input_tokens: 100.7, output_tokens: 10.2 }, undefined);
    expect(charged).toBe((100 * 4 + 10 * 16) * perToken);
  }, 15_000);
});

describe('realtime: an upstream that breaks the WebSocket protocol', () => {
  async function breakWith(send: (ws: WebSocket) => void): Promise<{ code: number; statuses: number[] }> {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      ws.send(created('resp_u'));
      ws.send(delta('resp_u', 'Some text before the upstream breaks. '));
      send(ws);
    };
    const since = await lastLogId();
    const { socket, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    const code = await closed;
    await expect.poll(() => held(), { timeout: 12_000 }).toBe(0);
    const rows = await logsSince(since);
    return { code, statuses: rows.map((row) => Number(row.status)) };
  }

  it('closes the client with 1011, not 1000, after a text frame that is not UTF-8; the cut response is billed', async () => {
    // The gateway's ws receiver fails the upstream connection (1007) and emits `error` before `close`.
    const { code, statuses } = await breakWith((ws) => ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false }));
    expect(code).toBe(1011);
    expect(statuses).toContain(499);
  }, 20_000);

  it('closes the client with 1011 after a frame over the size limit', async () => {
    const { code, statuses } = await breakWith((ws) => ws.send(Buffer.alloc(maxRealtimeFrameBytes + 1, 0x61), { binary: true }));
    expect(code).toBe(1011);
    expect(statuses).toContain(499);
  }, 20_000);
});
