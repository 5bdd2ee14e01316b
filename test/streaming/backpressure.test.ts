import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { expectedCharge } from '../billing-edges/billing-fixture.js';
import { anthropicHeaders, openaiHeaders, rawStreamRequest, sleep, startStreamGateway, type StreamGateway } from './stream-fixture.js';
import { startFastUpstream, type FastStream } from './fast-upstream.js';

/**
 * docs/behaviour.md "Streaming": events forwarded "with backpressure"; "undici stops reading the socket only
 * when more than 64 KB are held (the reader is slow or paused)"; "A client disconnect aborts the upstream
 * request at once". A paused client must stall the upstream (bounded memory), the stream must complete on
 * resume and be charged exactly the upstream's usage.
 */
let gw: StreamGateway | undefined;
let up: FastStream | undefined;
afterEach(async () => {
  await gw?.close();
  await up?.upstream.close();
  gw = undefined;
  up = undefined;
  vi.restoreAllMocks();
});

const EVENTS = 3000; // ~48 MB of upstream stream
type Path = { name: string; client: 'openai-chat' | 'anthropic'; upstream: 'openai-chat' | 'anthropic' };
const paths: Path[] = [
  { name: 'chat → chat (pipe-openai-stream)', client: 'openai-chat', upstream: 'openai-chat' },
  { name: 'anthropic → anthropic (passthrough)', client: 'anthropic', upstream: 'anthropic' },
  { name: 'anthropic client → chat upstream (converted)', client: 'anthropic', upstream: 'openai-chat' },
];

function request(path: Path, url: string) {
  if (path.client === 'openai-chat') return rawStreamRequest(`${url}/v1/chat/completions`, openaiHeaders, { model: 'fast', stream: true, max_tokens: 5000, messages: [{ role: 'user', content: 'Say hello' }] });
  return rawStreamRequest(`${url}/v1/messages`, anthropicHeaders, { model: 'fast', stream: true, max_tokens: 5000, messages: [{ role: 'user', content: 'Say hello' }] });
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    res.on('data', (c: Buffer) => parts.push(c));
    res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    res.on('error', reject);
  });
}

describe('a paused client stalls a fast upstream; the stream completes on resume and is charged exactly', () => {
  for (const path of paths) {
    it(path.name, async () => {
      up = await startFastUpstream(path.upstream, EVENTS, path.client !== path.upstream);
      gw = await startStreamGateway([{ model: 'fast', style: path.upstream, url: up.upstream.url }]);
      const { res } = await request(path, gw.gateway.url);
      expect(res.statusCode).toBe(200);
      res.pause();
      await sleep(2500);
      const w1 = up.written[0]!;
      await sleep(1500);
      const w2 = up.written[0]!;
      const total = EVENTS * 16.5 * 1024;
      // Backpressure reached the upstream: it is no longer writing, and wrote a bounded part of the stream.
      expect({ grewWhilePaused: w2 - w1 < 512 * 1024, boundedPart: w2 < total * 0.6, finished: up.finished[0] }).toEqual({ grewWhilePaused: true, boundedPart: true, finished: false });
      const body = readAll(res);
      res.resume();
      const text = await body;
      expect(up.finished[0]).toBe(true);
      if (path.client === 'openai-chat') expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      else expect(text).toContain('message_stop');
      expect(text.split('hi|').length - 1).toBe(EVENTS);
      const [row] = await gw.logs();
      const charge = expectedCharge({ input: 10, output: EVENTS });
      expect({ status: row.status, source: row.usage_source, output: row.output_tokens, quota: row.quota, error: row.error }).toEqual({ status: 200, source: 'upstream', output: EVENTS, quota: charge, error: null });
      const reservations = await gw.reservations();
      expect(reservations.map((r) => [r.state, r.settled_amount])).toEqual([['settled', charge]]);
      expect((await gw.balances()).tokenUsed).toBe(charge);
    }, 30_000);
  }
});

describe('a client that disconnects while backpressured: upstream aborted promptly, reservation settled, no error', () => {
  for (const path of paths) {
    it(path.name, async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (e: unknown) => unhandled.push(e);
      process.on('unhandledRejection', onUnhandled);
      const errors = vi.spyOn(console, 'error');
      try {
        up = await startFastUpstream(path.upstream, EVENTS, path.client !== path.upstream);
        gw = await startStreamGateway([{ model: 'fast', style: path.upstream, url: up.upstream.url }]);
        const { res, req } = await request(path, gw.gateway.url);
        res.pause();
        await sleep(2000);
        const leftAt = Date.now();
        req.destroy();
        res.destroy();
        const deadline = Date.now() + 5000;
        while (up.upstream.closedEarlyAt.length === 0 && Date.now() < deadline) await sleep(20);
        expect(up.upstream.closedEarlyAt.length).toBe(1);
        expect(up.upstream.closedEarlyAt[0]! - leftAt).toBeLessThan(1000);
        expect(up.finished[0]).toBe(false);
        await sleep(200);
        const [row] = await gw.logs();
        expect(row.status).toBe(499);
        const reservations = await gw.reservations();
        expect(reservations.filter((r) => r.state !== 'settled')).toEqual([]);
        expect(reservations[0]!.settled_amount).toBe(row.quota);
        expect((await gw.balances()).tokenUsed).toBe(row.quota);
        expect(row.quota).toBeGreaterThan(0);
        expect(unhandled).toEqual([]);
        expect(errors).not.toHaveBeenCalled();
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    }, 30_000);
  }
});
