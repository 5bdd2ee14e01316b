/**
 * From the realtime audit (docs/behaviour.md "Realtime", protocols.md §9), with a scripted upstream the test
 * drives frame by frame (GA event shapes) and raw `ws` clients: usage the upstream sent before it saw the
 * session close (a response.done, a transcription) is billed; frames are read by their parsed `type`, so
 * client text quoting `"response.done` in metadata or instructions cannot hide a response or a transcription
 * model; two responses under way each keep their own text count; a `response.create` spelled with a JSON
 * escape is still refused once the key is disabled.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { listenRealtimeUpstream } from './listen-realtime-upstream.js';
import { realtimeLedgerReads } from './realtime-ledger-reads.js';

const quotaPerUnit = 500_000;
const perToken = quotaPerUnit / 1_000_000;
const prices = {
  'gpt-realtime': { input: 4, output: 16, audio_input: 32 },
  'gpt-4o-transcribe': { input: 2.5, output: 10, audio_input: 6 },
  'gpt-4o-mini-transcribe': { input: 1.25, output: 5, audio_input: 3 },
};
const key = `sk-${'q'.repeat(48)}`;

type Handler = (ws: WebSocket, event: Record<string, unknown>) => void;
let handler: Handler = () => undefined;
let session: Record<string, unknown> = {};
let upstreamUrl = '';
let closeUpstream: () => Promise<void>;
let gateway: TestGateway;
let n = 0;
const ev = (type: string, rest: Record<string, unknown> = {}) => JSON.stringify({ type, event_id: `event_${++n}`, ...rest });

beforeAll(async () => {
  const upstream = await listenRealtimeUpstream((ws) => {
    session = { id: 'sess_1', object: 'realtime.session', type: 'realtime', model: 'gpt-realtime', instructions: '' };
    ws.on('error', () => undefined);
    ws.on('message', (data) => {
      const event = JSON.parse(data.toString()) as Record<string, unknown>;
      if (event.type === 'session.update') {
        session = { ...session, ...(event.session as object) };
        ws.send(ev('session.updated', { session }));
        return;
      }
      handler(ws, event);
    });
    ws.send(ev('session.created', { session }));
  });
  upstreamUrl = upstream.url;
  closeUpstream = upstream.close;
  gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      prices,
      channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstreamUrl, key: 'sk-up-realtime-audit', priority: 0, model_mapping: {} }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'k', user: 'u', key, quota: 0, unlimited_quota: true, expires_at: 0, enabled: true }],
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
const { used, held, lastLogId, logsSince } = realtimeLedgerReads(() => gateway);

async function open(): Promise<{ socket: WebSocket; types: string[]; closed: Promise<number> }> {
  const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${key}` } });
  const types: string[] = [];
  socket.on('message', (data: Buffer) => types.push((JSON.parse(data.toString()) as { type: string }).type));
  const closed = new Promise<number>((resolve) => socket.once('close', resolve));
  await new Promise<void>((resolve, reject) => {
    socket.once('message', () => resolve());
    socket.once('error', reject);
  });
  return { socket, types, closed };
}

const usageOf = (input: number, output: number) => ({ total_tokens: input + output, input_tokens: input, output_tokens: output, input_token_details: { text_tokens: input, audio_tokens: 0, cached_tokens: 0 }, output_token_details: { text_tokens: output, audio_tokens: 0 } });
const delta = (responseId: string, text: string) => ev('response.output_text.delta', { response_id: responseId, item_id: `item_${responseId}`, output_index: 0, content_index: 0, delta: text });
const done = (responseId: string, status: string, usage: unknown) => ev('response.done', { response: { id: responseId, object: 'realtime.response', status, output: [], metadata: null, usage } });
const settleTime = () => new Promise((resolve) => setTimeout(resolve, 400));

describe('realtime audit: responses', () => {
  it('bills a response whose response.created carries client metadata quoting "response.done" when the client leaves mid-response', async () => {
    // The response resource in response.created echoes the client's `metadata` (GA RealtimeResponse.metadata).
    handler = (ws, event) => {
      if (event.type === 'response.create') {
        const metadata = ((event.response as Record<string, unknown> | undefined)?.metadata ?? null) as unknown;
        ws.send(ev('response.created', { response: { id: 'resp_m', object: 'realtime.response', status: 'in_progress', output: [], metadata } }));
        for (const text of ['Once upon a time ', 'there was a long story ', 'that went on and on']) ws.send(delta('resp_m', text));
      } else if (event.type === 'response.cancel') {
        ws.send(done('resp_m', 'cancelled', usageOf(400, 60)));
      }
    };
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create', response: { metadata: { note: 'say "response.done' } } }));
    await expect.poll(() => types.filter((type) => type === 'response.output_text.delta').length).toBe(3);
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    await settleTime();
    // The upstream bills the cancelled response: 400 in, 60 out.
    expect((await used()) - before).toBe((400 * 4 + 60 * 16) * perToken);
  }, 15_000);

  it('bills the text of a second response cut by the upstream, though another response finished while it ran', async () => {
    let upstreamSocket: WebSocket | undefined;
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      upstreamSocket = ws;
      // Two out-of-band responses (conversation: "none") under way at once; B's text comes before A ends.
      ws.send(ev('response.created', { response: { id: 'resp_a', object: 'realtime.response', status: 'in_progress', output: [] } }));
      ws.send(ev('response.created', { response: { id: 'resp_b', object: 'realtime.response', status: 'in_progress', output: [] } }));
      ws.send(delta('resp_a', 'Short.'));
      for (const text of ['The second response ', 'produced plenty of text ', 'before the first one ended.']) ws.send(delta('resp_b', text));
      ws.send(done('resp_a', 'completed', usageOf(10, 2)));
    };
    const since = await lastLogId();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create', response: { conversation: 'none' } }));
    await expect.poll(() => types.filter((type) => type === 'response.done').length).toBe(1);
    await settleTime();
    upstreamSocket?.close(1011, 'upstream failed');
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    const rows = await logsSince(since);
    const cut = rows.find((row) => Number(row.status) === 499);
    expect(cut, 'a 499 row for the cut response').toBeDefined();
    // B relayed 3 deltas (≈ 15 tokens) to the client: its cut row must bill them, not 0.
    expect(Number(cut?.output_tokens)).toBeGreaterThan(5);
    expect(Number(cut?.quota)).toBeGreaterThan(0);
  }, 15_000);

  it('bills a response.done the upstream sent before it saw the gateway close the session', async () => {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      // Network latency: the upstream answers before the gateway's close frame reaches it.
      const raw = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      raw.pause();
      setTimeout(() => {
        ws.send(ev('response.created', { response: { id: 'resp_q', object: 'realtime.response', status: 'in_progress', output: [] } }));
        ws.send(delta('resp_q', 'Quick.'));
        ws.send(done('resp_q', 'completed', usageOf(300, 40)));
        raw.resume();
      }, 150);
    };
    const before = await used();
    const { socket, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    await settleTime();
    expect((await used()) - before).toBe((300 * 4 + 40 * 16) * perToken);
  }, 15_000);
});

describe('realtime audit: transcription', () => {
  const completed = (usage: unknown) => ev('conversation.item.input_audio_transcription.completed', { item_id: 'item_t', content_index: 0, transcript: 'Hello there.', usage });
  const tokens = (audio: number, output: number) => ({ type: 'tokens', total_tokens: audio + output, input_tokens: audio, input_token_details: { text_tokens: 0, audio_tokens: audio }, output_tokens: output });

  it('bills a transcription the upstream reported as the client left', async () => {
    handler = (ws, event) => {
      if (event.type !== 'input_audio_buffer.commit') return;
      // Network latency: the upstream reports the transcription before the gateway's close frame reaches it.
      const raw = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      raw.pause();
      setTimeout(() => {
        ws.send(ev('input_audio_buffer.committed', { previous_item_id: null, item_id: 'item_t' }));
        ws.send(completed(tokens(500, 20)));
        raw.resume();
      }, 150);
    };
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } } }));
    await expect.poll(() => types.includes('session.updated')).toBe(true);
    socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    await settleTime();
    expect((await used()) - before).toBe((500 * 6 + 20 * 10) * perToken);
  }, 15_000);

  it("bills at the transcription model the session last named, even when the session's instructions quote \"response.done", async () => {
    handler = (ws, event) => {
      if (event.type !== 'input_audio_buffer.commit') return;
      ws.send(ev('input_audio_buffer.committed', { previous_item_id: null, item_id: 'item_t' }));
      ws.send(completed(tokens(1_000, 50)));
    };
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', audio: { input: { transcription: { model: 'gpt-4o-mini-transcribe' } } } } }));
    await expect.poll(() => types.filter((type) => type === 'session.updated').length).toBe(1);
    socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', instructions: 'Answer with "response.done', audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } } }));
    await expect.poll(() => types.filter((type) => type === 'session.updated').length).toBe(2);
    socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    await expect.poll(() => types.includes('conversation.item.input_audio_transcription.completed')).toBe(true);
    await settleTime();
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    // The upstream transcribed with gpt-4o-transcribe and bills that.
    expect((await used()) - before).toBe((1_000 * 6 + 50 * 10) * perToken);
  }, 15_000);
});

describe('realtime audit: access re-checked before response.create', () => {
  it('refuses a response.create spelled with a JSON escape once the key is disabled', async () => {
    const creates: number[] = [];
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      creates.push(Date.now());
      ws.send(ev('response.created', { response: { id: 'resp_e', object: 'realtime.response', status: 'in_progress', output: [] } }));
      ws.send(delta('resp_e', 'Paid for by a revoked key.'));
      ws.send(done('resp_e', 'completed', usageOf(100, 10)));
    };
    const { socket, types, closed } = await open();
    // Any frame: the once-a-second access check runs now (the key is still good).
    socket.send(JSON.stringify({ type: 'input_audio_buffer.clear' }));
    const admin = { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' };
    const list = (await (await fetch(`${gateway.url}/api/admin/tokens`, { headers: admin })).json()) as { data: { items?: { id: number; name: string }[] } | { id: number; name: string }[] };
    const items = Array.isArray(list.data) ? list.data : (list.data.items ?? []);
    const id = items.find((token) => token.name === 'k')?.id;
    expect((await fetch(`${gateway.url}/api/admin/tokens/${id}`, { method: 'PUT', headers: admin, body: JSON.stringify({ enabled: false }) })).status).toBe(200);
    // `response\u002ecreate` is `response.create` to any JSON parser (OpenAI's included).
    socket.send('{"type":"response\\u002ecreate"}');
    const code = await closed;
    await fetch(`${gateway.url}/api/admin/tokens/${id}`, { method: 'PUT', headers: admin, body: JSON.stringify({ enabled: true }) });
    expect(creates, 'response.create relayed upstream for a disabled key').toEqual([]);
    expect(code).toBe(1008);
    expect(types).toContain('error');
  }, 15_000);
});
