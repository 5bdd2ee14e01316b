/**
 * A client-chosen x-request-id is never the reservation key; oversized, deeply nested and slow inputs get
 * 4xx (never 500), leave no reservation open, and do not take the gateway down.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatStream, chatWhole } from '../fakes/scripted-vendor-wire.js';
import { clientKey, send, startHardeningFixture, type HardeningFixture } from './hardening-fixture.js';

let f: HardeningFixture;
beforeAll(async () => {
  f = await startHardeningFixture();
});
afterAll(async () => {
  await f?.close();
});
beforeEach(() => {
  f.openai.setFallback((request) => (request.body?.stream === true ? chatStream({ text: 'hello there', usage: { input: 3, output: 2 } }) : chatWhole({ text: 'hi', usage: { input: 3, output: 2 } })));
});

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

describe('x-request-id from the client', () => {
  it('is ignored: replaying one id (sequentially and concurrently) gives each request its own id, reservation and charge', async () => {
    const before = await f.balances();
    const logsBefore = (await f.logRows()).length;
    const first = await send(f.url, '/v1/chat/completions', { body: chat, headers: { 'x-request-id': 'replayed-id' } });
    const second = await send(f.url, '/v1/chat/completions', { body: chat, headers: { 'x-request-id': 'replayed-id' } });
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => send(f.url, '/v1/chat/completions', { body: { ...chat, stream: true }, headers: { 'x-request-id': 'replayed-id' } })));
    const all = [first, second, ...concurrent];
    expect(all.map((answer) => answer.status)).toEqual(all.map(() => 200));
    const ids = all.map((answer) => answer.headers.get('x-request-id') ?? '');
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(all.length);
    expect((await f.logRows()).slice(logsBefore).map((row) => row.request_id).sort()).toEqual([...ids].sort());
    const after = await f.balances();
    expect(after.openReservations).toBe(0);
    expect(after.reservations - before.reservations).toBe(all.length);
    // 3 input × $1 + 2 output × $2 per 1M tokens × 500 000 = 3.5 → 4 quota units each (rounded half up).
    expect(after.tokenUsed - before.tokenUsed).toBe(4 * all.length);
    expect(after.userUsed - before.userUsed).toBe(4 * all.length);
  });
});

describe('a body nested 20 000 levels deep: 400 "The request body is nested too deeply.", nothing reserved', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const objectNested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const depth = 20_000;
  const routes: [string, string][] = [
    ['/v1/chat/completions (tools parameters)', `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${objectNested(depth)}}}]}`],
    ['/v1/chat/completions (tool_calls)', `{"model":"gpt-4o-mini","messages":[{"role":"assistant","content":null,"tool_calls":[${objectNested(depth)}]},{"role":"user","content":"hi"}]}`],
    ['/v1/completions (prompt)', `{"model":"gpt-4o-mini","prompt":${nested(depth)}}`],
    ['/v1/embeddings (input)', `{"model":"text-embedding-3-small","input":${nested(depth)}}`],
    ['/v1/engines/text-embedding-3-small/embeddings (input)', `{"input":${nested(depth)}}`],
    ['/v1/moderations (input)', `{"model":"gpt-4o-mini","input":${nested(depth)}}`],
    ['/v1/rerank (documents)', `{"model":"gpt-4o-mini","query":"q","documents":${nested(depth)}}`],
    // Overflowing only once reserved, inside the relay (re-serialised for include_usage / the schema walked): still 400, the reservation released.
    ['/v1/chat/completions (streamed, an unknown nested field)', `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true,"extra":${objectNested(depth)}}`],
    ['/v1/responses (text.format.schema)', `{"model":"gpt-4o-mini","input":"hi","text":{"format":{"type":"json_schema","name":"s","schema":${objectNested(depth)}}}}`],
    ['/v1/responses (tools parameters)', `{"model":"gpt-4o-mini","input":"hi","tools":[{"type":"function","name":"f","parameters":${objectNested(depth)}}]}`],
    ['/v1/messages (tool input_schema)', `{"model":"claude-sonnet-4-5","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${objectNested(depth)}}]}`],
    ['/v1beta/models/gemini-2.5-flash:generateContent (contents)', `{"contents":${nested(depth)}}`],
    ['/v1beta/models/gemini-2.5-flash:countTokens (contents)', `{"contents":${nested(depth)}}`],
  ];
  for (const [label, raw] of routes) {
    it(label, async () => {
      const answer = await send(f.url, label.split(' ')[0] as string, { raw });
      expect(answer.status, answer.text.slice(0, 200)).toBe(400);
      // Every envelope (OpenAI, Anthropic, Gemini) carries error.message; OpenAI's and Anthropic's end with the request id.
      const message = String(answer.json?.error?.message).replace(` (request id: ${answer.headers.get('x-request-id')})`, '');
      expect(message).toBe('The request body is nested too deeply.');
      expect((await f.balances()).openReservations).toBe(0);
      expect((await fetch(`${f.url}/healthz`)).status).toBe(200);
    });
  }
});

describe('oversized and slow inputs', () => {
  it('a 64 KiB header is refused with 431 and the gateway keeps serving', async () => {
    const answer = await fetch(`${f.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'x-big': 'a'.repeat(64 * 1024) }, body: JSON.stringify(chat) });
    expect(answer.status).toBe(431);
    expect((await send(f.url, '/v1/chat/completions', { body: chat })).status).toBe(200);
  });

  it('a 20 MB JSON string (under max_body_mb) is relayed and settles', async () => {
    const answer = await send(f.url, '/v1/chat/completions', { body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'word '.repeat(4_000_000) }] } });
    expect(answer.status).toBe(200);
    expect((await f.balances()).openReservations).toBe(0);
  });

  it('the HTTP server drops a request whose headers and body have not arrived within 300 s (requestTimeout)', () => {
    expect(f.gateway.gateway.app.server.requestTimeout).toBe(300_000);
  });

  it('a body that never finishes does not block other requests and leaves no reservation', async () => {
    const socket = connect(Number(new URL(f.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${clientKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":`);
    try {
      expect((await send(f.url, '/v1/chat/completions', { body: chat })).status).toBe(200);
      expect((await f.balances()).openReservations).toBe(0);
    } finally {
      socket.destroy();
    }
  });

  it('thousands of tiny SSE events reach the client whole and settle once', async () => {
    const pieces = Array.from({ length: 5000 }, (_, index) => `t${index % 10}`);
    f.openai.enqueue(chatStream({ text: pieces, usage: { input: 3, output: 5000 } }));
    const before = await f.balances();
    const response = await fetch(`${f.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...chat, stream: true }) });
    const text = await response.text();
    expect(response.status).toBe(200);
    const content = text
      .split('\n\n')
      .filter((event) => event.startsWith('data: {'))
      .map((event) => JSON.parse(event.slice(6)).choices?.[0]?.delta?.content ?? '')
      .join('');
    expect(content).toBe(pieces.join(''));
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const after = await f.balances();
    expect(after.openReservations).toBe(0);
    // 3 × 1 + 5000 × 2 per 1M × 500 000 = 5001.5 → 5002.
    expect(after.tokenUsed - before.tokenUsed).toBe(5002);
  });
});
