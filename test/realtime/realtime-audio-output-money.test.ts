/**
 * Realtime audio output without the upstream's usage (docs/behaviour.md "Realtime"), on every database: a
 * response cut by the upstream, or a `response.done` without usage, is billed the audio it relayed — 20
 * audio output tokens a second (OpenAI: 1 token per 50 ms of assistant audio), read from the audio deltas'
 * bytes in the output format the session or the response names — at the `audio_output` price, besides its
 * text. A scripted upstream (GA and beta event shapes) and raw `ws` clients, as the other database suites.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { listenRealtimeUpstream } from './listen-realtime-upstream.js';
import { realtimeLedgerReads } from './realtime-ledger-reads.js';

const quotaPerUnit = 500_000;
const perToken = quotaPerUnit / 1_000_000;
const price = { input: 4, output: 16, audio_input: 32, audio_output: 64 };
const key = `sk-${'v'.repeat(48)}`;
let n = 0;
const ev = (type: string, rest: Record<string, unknown> = {}) => JSON.stringify({ type, event_id: `event_${++n}`, ...rest });
/** An audio delta carrying `bytes` bytes of audio (silence), base64 as OpenAI sends it. */
const audioDelta = (type: string, responseId: string, bytes: number) => ev(type, { response_id: responseId, item_id: `item_${responseId}`, output_index: 0, content_index: 0, delta: Buffer.alloc(bytes).toString('base64') });
const created = (id: string, extra: Record<string, unknown> = {}) => ev('response.created', { response: { id, object: 'realtime.response', status: 'in_progress', output: [], ...extra } });
const doneWithoutUsage = (id: string) => ev('response.done', { response: { id, object: 'realtime.response', status: 'completed', output: [] } });

type Handler = (ws: WebSocket, event: Record<string, unknown>) => void;

describe.each(allDialects)('realtime audio output billed without usage on $dialect', ({ dialect, available }) => {
  let gateway: TestGateway;
  let closeUpstream: () => Promise<void>;
  let handler: Handler = () => undefined;
  let session: Record<string, unknown> = {};

  beforeAll(async () => {
    if (!available) return;
    const upstream = await listenRealtimeUpstream((ws) => {
      ws.on('error', () => undefined);
      ws.on('message', (data) => handler(ws, JSON.parse(data.toString()) as Record<string, unknown>));
      ws.send(ev('session.created', { session }));
    });
    closeUpstream = upstream.close;
    gateway = await startTestGateway({
      dialect,
      config: {
        prices: { 'gpt-realtime': price },
        realtime_hold_input_tokens: 1_000,
        channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: 'sk-up-realtime-audio', priority: 0, model_mapping: {} }],
        users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
        tokens: [{ name: 'k', user: 'u', key, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
      },
    });
  }, 30_000);
  afterAll(async () => {
    if (!available) return;
    await gateway.close();
    await closeUpstream();
  }, 30_000);
  beforeEach(() => {
    handler = () => undefined;
    // GA: pcm16 at 24 kHz, OpenAI's default.
    session = { id: 'sess_a', object: 'realtime.session', type: 'realtime', model: 'gpt-realtime', audio: { output: { format: { type: 'audio/pcm', rate: 24_000 }, voice: 'marin' } } };
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

  it.skipIf(!available)('bills a response.done without usage the 2 s of pcm16 audio it relayed: 40 audio output tokens at audio_output', async () => {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      ws.send(created('resp_pcm'));
      // 4 × 24,000 bytes of 16-bit samples at 24 kHz: 2 seconds.
      for (let index = 0; index < 4; index += 1) ws.send(audioDelta('response.output_audio.delta', 'resp_pcm', 24_000));
      ws.send(doneWithoutUsage('resp_pcm'));
    };
    const since = await lastLogId();
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    await expect.poll(() => types.filter((type) => type === 'response.done').length).toBe(1);
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    expect((await used()) - before).toBe(40 * price.audio_output * perToken);
    const rows = await logsSince(since);
    expect(rows.map((row) => [Number(row.status), Number(row.output_tokens), Number(row.audio_output_tokens), Number(row.quota)])).toEqual([[200, 40, 40, 40 * price.audio_output * perToken]]);
  }, 20_000);

  it.skipIf(!available)('bills a response the upstream cut the G.711 audio it relayed in the format the session named (499)', async () => {
    // The session's output is µ-law at 8 kHz: 8,000 bytes a second.
    session = { ...session, audio: { output: { format: { type: 'audio/pcmu' }, voice: 'marin' } } };
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      ws.send(created('resp_cut'));
      // 1.5 s of µ-law, then the upstream fails.
      for (let index = 0; index < 3; index += 1) ws.send(audioDelta('response.output_audio.delta', 'resp_cut', 4_000));
      setTimeout(() => ws.close(1011, 'upstream failed'), 300);
    };
    const since = await lastLogId();
    const before = await used();
    const { socket, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    expect(await closed).toBe(1011);
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    expect((await used()) - before).toBe(30 * price.audio_output * perToken);
    const rows = await logsSince(since);
    expect(rows.map((row) => [Number(row.status), Number(row.audio_output_tokens), Number(row.quota)])).toEqual([[499, 30, 30 * price.audio_output * perToken]]);
  }, 20_000);

  it.skipIf(!available)('bills beta audio deltas in the format the response itself named, beside its transcript', async () => {
    // Beta shapes: the session says pcm16, the response asked for A-law (8,000 bytes a second).
    session = { id: 'sess_b', object: 'realtime.session', model: 'gpt-4o-realtime-preview', output_audio_format: 'pcm16' };
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      ws.send(created('resp_beta', { output_audio_format: 'g711_alaw' }));
      ws.send(ev('response.audio_transcript.delta', { response_id: 'resp_beta', item_id: 'item_resp_beta', output_index: 0, content_index: 0, delta: 'Hi' }));
      // 1 second of A-law in two deltas.
      for (let index = 0; index < 2; index += 1) ws.send(audioDelta('response.audio.delta', 'resp_beta', 4_000));
      ws.send(doneWithoutUsage('resp_beta'));
    };
    const since = await lastLogId();
    const before = await used();
    const { socket, types, closed } = await open();
    socket.send(JSON.stringify({ type: 'response.create' }));
    await expect.poll(() => types.filter((type) => type === 'response.done').length).toBe(1);
    socket.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    const rows = await logsSince(since);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    // 20 audio tokens, and the transcript's text ('Hi': one token) at the text output price.
    expect(Number(row?.audio_output_tokens)).toBe(20);
    const textTokens = Number(row?.output_tokens) - 20;
    expect(textTokens).toBeGreaterThan(0);
    expect((await used()) - before).toBe((20 * price.audio_output + textTokens * price.output) * perToken);
  }, 20_000);
});
