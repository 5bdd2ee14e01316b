import { afterEach, describe, expect, it } from 'vitest';
import { expectedCharge, readSse } from '../billing-edges/billing-fixture.js';
import { anthropicHeaders, openaiHeaders, sleep, startStreamGateway, startByteUpstream, writeAwait, type StreamGateway, type ByteUpstream } from './stream-fixture.js';

/**
 * docs/behaviour.md "Streaming": events in any chunking; CRLF, comments, `data:` without a space go through
 * the full decoder; "only their single events are bounded (8 MiB)". Same-style and converted paths.
 */
let gw: StreamGateway | undefined;
let up: ByteUpstream | undefined;
afterEach(async () => {
  await gw?.close();
  await up?.close();
  gw = undefined;
  up = undefined;
});

const TEXT = 'héllo 世界 🎉 ok';

type Shape = 'split-bytes' | 'crlf-split' | 'no-space' | 'comment-only';

function chatBody(shape: Shape): string {
  const nl = shape === 'crlf-split' ? '\r\n' : '\n';
  const d = shape === 'no-space' ? 'data:' : 'data: ';
  const ev = (o: object) => `${d}${JSON.stringify(o)}${nl}${nl}`;
  const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm' };
  const parts = [
    ev({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    ...(shape === 'comment-only' ? [`: keep-alive${nl}${nl}`] : []),
    ev({ ...base, choices: [{ index: 0, delta: { content: TEXT.slice(0, 8) }, finish_reason: null }] }),
    ...(shape === 'comment-only' ? [`: just a comment${nl}${nl}`] : []),
    ev({ ...base, choices: [{ index: 0, delta: { content: TEXT.slice(8) }, finish_reason: null }] }),
    ev({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    ev({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 } }),
    `${d}[DONE]${nl}${nl}`,
  ];
  return parts.join('');
}

function anthropicBody(shape: Shape): string {
  const nl = shape === 'crlf-split' ? '\r\n' : '\n';
  const d = shape === 'no-space' ? 'data:' : 'data: ';
  const ev = (type: string, o: object) => `event: ${type}${nl}${d}${JSON.stringify({ type, ...o })}${nl}${nl}`;
  return [
    ev('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...(shape === 'comment-only' ? [`: ping comment${nl}${nl}`] : []),
    ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: TEXT.slice(0, 8) } }),
    ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: TEXT.slice(8) } }),
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } }),
    ev('message_stop', {}),
  ].join('');
}

/** Pieces of the body: every byte alone for split-bytes (UTF-8 characters split), else cut inside each CRLF / prefix. */
function pieces(body: string, shape: Shape): Buffer[] {
  const bytes = Buffer.from(body, 'utf8');
  if (shape === 'split-bytes') return [...bytes].map((b) => Buffer.from([b]));
  const out: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    // cut between CR and LF, after "data:", and inside every multi-byte character
    const cut = (bytes[i] === 0x0a && bytes[i - 1] === 0x0d) || (bytes[i] === 0x3a && bytes.subarray(i - 4, i).toString() === 'data') || ((bytes[i]! & 0xc0) === 0x80 && (bytes[i - 1]! & 0xc0) !== 0x80);
    if (cut && i > start) {
      out.push(bytes.subarray(start, i));
      start = i;
    }
  }
  out.push(bytes.subarray(start));
  return out;
}

const cases: { client: 'openai-chat' | 'anthropic'; upstream: 'openai-chat' | 'anthropic' }[] = [
  { client: 'openai-chat', upstream: 'openai-chat' },
  { client: 'anthropic', upstream: 'anthropic' },
  { client: 'openai-chat', upstream: 'anthropic' },
  { client: 'anthropic', upstream: 'openai-chat' },
];

async function call(client: 'openai-chat' | 'anthropic', url: string) {
  const isChat = client === 'openai-chat';
  return fetch(isChat ? `${url}/v1/chat/completions` : `${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(isChat ? openaiHeaders : anthropicHeaders) },
    body: JSON.stringify({ model: 'm1', stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'Say hello' }] }),
  });
}

describe('awkward but valid SSE framing reaches the client intact and is billed at the upstream usage', () => {
  for (const shape of ['split-bytes', 'crlf-split', 'no-space', 'comment-only'] as Shape[]) {
    for (const c of cases) {
      it(`${shape}: ${c.client} client ← ${c.upstream} upstream`, async () => {
        const body = c.upstream === 'openai-chat' ? chatBody(shape) : anthropicBody(shape);
        up = await startByteUpstream(async (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const piece of pieces(body, shape)) {
            await writeAwait(res, piece);
            await new Promise((r) => setImmediate(r));
          }
          res.end();
        });
        gw = await startStreamGateway([{ model: 'm1', style: c.upstream, url: up.url }]);
        const response = await call(c.client, gw.gateway.url);
        expect(response.status).toBe(200);
        const read = await readSse(response, c.client);
        expect(read.text).toBe(TEXT);
        expect(read.events.some((e) => e.includes('"error"'))).toBe(false);
        const [row] = await gw.logs();
        expect({ status: row.status, source: row.usage_source, quota: row.quota, error: row.error }).toEqual({ status: 200, source: 'upstream', quota: expectedCharge({ input: 10, output: 7 }), error: null });
        expect((await gw.reservations()).map((r) => r.state)).toEqual(['settled']);
      }, 30_000);
    }
  }
});

describe('a single upstream event above 8 MiB after the first text: the stream is ended as interrupted, settled, no crash', () => {
  for (const c of cases) {
    it(`${c.client} client ← ${c.upstream} upstream`, async () => {
      const huge = 'z'.repeat(9 * 1024 * 1024);
      up = await startByteUpstream(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (c.upstream === 'openai-chat') {
          const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm' };
          await writeAwait(res, `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] })}\n\n`);
          await sleep(50);
          for (let i = 0; i < huge.length; i += 256 * 1024) if (!(await writeAwait(res, i === 0 ? `data: {"pad":"${huge.slice(0, 256 * 1024)}` : huge.slice(i, i + 256 * 1024)))) return;
          await writeAwait(res, '"}\n\n');
        } else {
          const ev = (type: string, o: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`;
          await writeAwait(res, ev('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }) + ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) + ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } }));
          await sleep(50);
          for (let i = 0; i < huge.length; i += 256 * 1024) if (!(await writeAwait(res, i === 0 ? `event: ping\ndata: {"type":"ping","pad":"${huge.slice(0, 256 * 1024)}` : huge.slice(i, i + 256 * 1024)))) return;
          await writeAwait(res, '"}\n\n');
        }
        res.end();
      });
      gw = await startStreamGateway([{ model: 'm1', style: c.upstream, url: up.url }]);
      const response = await call(c.client, gw.gateway.url);
      expect(response.status).toBe(200);
      const read = await readSse(response, c.client);
      expect(read.text).toBe('Hi');
      // the client is told of the interruption in its own style (an error event)
      expect(read.events.some((e) => e.includes('"error"'))).toBe(true);
      await sleep(100);
      const [row] = await gw.logs();
      expect(row.error ?? '').toMatch(/exceeds|interrupt/);
      const reservations = await gw.reservations();
      expect(reservations.map((r) => r.state)).toEqual(['settled']);
      expect(reservations[0]!.settled_amount).toBe(row.quota);
      expect(row.quota).toBeGreaterThan(0);
    }, 30_000);
  }
});
