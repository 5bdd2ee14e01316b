/**
 * Realtime money when the database fails the next hold (docs/behaviour.md "Realtime"), on every database:
 * a reserve that throws after a response.done must not leave the session naming the hold it just
 * settled, or a second response under way (out-of-band responses) settles that settled hold again and is
 * billed nothing. A scripted upstream ends two responses at once; the ledger's reserve is wrapped
 * in-process to throw once, for the hold after the first response.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { listenRealtimeUpstream } from './listen-realtime-upstream.js';
import { realtimeLedgerReads } from './realtime-ledger-reads.js';

const quotaPerUnit = 500_000;
const perToken = quotaPerUnit / 1_000_000;
const key = `sk-${'f'.repeat(48)}`;
let n = 0;
const ev = (type: string, rest: Record<string, unknown> = {}) => JSON.stringify({ type, event_id: `event_${++n}`, ...rest });
const usageOf = (input: number, output: number) => ({ total_tokens: input + output, input_tokens: input, output_tokens: output, input_token_details: { text_tokens: input, audio_tokens: 0, cached_tokens: 0 }, output_token_details: { text_tokens: output, audio_tokens: 0 } });
const created = (id: string) => ev('response.created', { response: { id, object: 'realtime.response', status: 'in_progress', output: [] } });
const done = (id: string, usage: unknown) => ev('response.done', { response: { id, object: 'realtime.response', status: 'completed', output: [], usage } });

describe.each(allDialects)('realtime: the next hold fails on $dialect', ({ dialect, available }) => {
  let gateway: TestGateway;
  let closeUpstream: () => Promise<void>;

  beforeAll(async () => {
    if (!available) return;
    // Two response.create events (a default and an out-of-band response): both answered, then both ended at once.
    const upstream = await listenRealtimeUpstream((ws) => {
      let creates = 0;
      ws.on('error', () => undefined);
      ws.on('message', (data) => {
        if ((JSON.parse(data.toString()) as { type?: unknown }).type !== 'response.create') return;
        creates += 1;
        if (creates < 2) return;
        ws.send(created('resp_a'));
        ws.send(created('resp_b'));
        ws.send(done('resp_a', usageOf(1_000, 20)));
        ws.send(done('resp_b', usageOf(500, 10)));
      });
      ws.send(ev('session.created', { session: { id: 'sess_f', object: 'realtime.session', type: 'realtime', model: 'gpt-realtime', instructions: '' } }));
    });
    closeUpstream = upstream.close;
    gateway = await startTestGateway({
      dialect,
      config: {
        prices: { 'gpt-realtime': { input: 4, output: 16, cache_read: 0.4 } },
        realtime_hold_input_tokens: 1_000,
        channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: 'sk-up-realtime-faults', priority: 0, model_mapping: {} }],
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

  const { used, held, lastLogId, logsSince } = realtimeLedgerReads(() => gateway);

  it.skipIf(!available).each([
    // The hold after the first response.done (`<session id>-2`) fails; the hold of nothing in its place is taken.
    { failing: ['-2'], case: 'the reserve after the first throws' },
    // The hold of nothing (`-3`) fails too: the second response takes one (`-4`) when it settles.
    { failing: ['-2', '-3'], case: 'the reserve after the first and the hold of nothing in its place throw' },
  ])('bills both of two responses ended at once when $case, and closes the client with 1011', async ({ failing }) => {
    const { ledger } = gateway.gateway.services.relay;
    const reserve = ledger.reserve.bind(ledger);
    const failed: string[] = [];
    const spy = vi.spyOn(ledger, 'reserve').mockImplementation((reservation, now) => {
      const suffix = failing.find((end) => reservation.id.endsWith(end) && !failed.includes(end));
      if (suffix !== undefined) {
        failed.push(suffix);
        return Promise.reject(new Error('connection reset by the database'));
      }
      return reserve(reservation, now);
    });
    try {
      const since = await lastLogId();
      const before = await used();
      const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${key}` } });
      socket.on('error', () => undefined);
      const closed = new Promise<number>((resolve) => socket.once('close', resolve));
      await new Promise<void>((resolve) => socket.once('message', () => resolve()));
      socket.send(JSON.stringify({ type: 'response.create' }));
      socket.send(JSON.stringify({ type: 'response.create', response: { conversation: 'none' } }));
      expect(await closed).toBe(1011);
      await expect.poll(() => held(), { timeout: 15_000 }).toBe(0);
      expect((await used()) - before, 'both responses charged').toBe((1_000 * 4 + 20 * 16 + 500 * 4 + 10 * 16) * perToken);
      expect(failed).toEqual(failing);
      const rows = await logsSince(since);
      const charged = rows.filter((row) => Number(row.status) === 200).map((row) => Number(row.quota));
      expect(charged.sort((a, b) => a - b)).toEqual([(500 * 4 + 10 * 16) * perToken, (1_000 * 4 + 20 * 16) * perToken]);
      // Each response's row under a reservation of its own: none settled twice.
      expect(new Set(rows.map((row) => row.request_id)).size).toBe(rows.length);
    } finally {
      spy.mockRestore();
    }
  }, 30_000);
});
