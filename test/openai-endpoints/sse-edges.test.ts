import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bytes, expectedCharge, frames, priceMilli, sse, startEndpointsFixture, tokens, type EndpointsFixture } from './endpoints-fixture.js';

let f: EndpointsFixture;
beforeAll(async () => {
  f = await startEndpointsFixture();
});
afterAll(async () => {
  await f?.close();
});
beforeEach(() => f.reset());

const chatPrice = priceMilli['chat-model'];
const usage = { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200, prompt_tokens_details: { cached_tokens: 400 }, completion_tokens_details: { reasoning_tokens: 50 } };
const usageCharge = expectedCharge(chatPrice, { input: 1000, cacheRead: 400, output: 200 });
const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'chat-model', choices: [{ index: 0, delta, finish_reason: finish }] });
const usageOnly = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'chat-model', choices: [], usage };
const send = (extra: object = {}) => f.post('/v1/chat/completions', { model: 'chat-model', stream: true, messages: [{ role: 'user', content: 'hi' }], ...extra });
const dataOf = (text: string) =>
  text
    .replaceAll('\r\n', '\n')
    .split('\n\n')
    .map((event) => event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.replace(/^data: ?/, '')).join('\n'))
    .filter((d) => d !== '' && d !== '[DONE]')
    .map((d) => JSON.parse(d));

describe('SSE framing edges (chat stream, client did not ask for usage)', () => {
  it('`data:` without a space: usage read, usage-only chunk dropped', async () => {
    f.chat.enqueue(sse([chunk({ content: 'Hi' }), chunk({}, 'stop'), usageOnly, '[DONE]'].map((p) => `data:${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`)));
    const { result, charge } = await f.charged(async () => (await send()).text());
    expect(dataOf(result).some((e) => e.usage !== undefined)).toBe(false);
    expect(charge).toBe(usageCharge);
  });

  it('bare CR line endings: usage read, usage-only chunk dropped', async () => {
    f.chat.enqueue(sse([chunk({ content: 'Hi' }), chunk({}, 'stop'), usageOnly, '[DONE]'].map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\r\r`)));
    const { result, charge } = await f.charged(async () => (await send()).text());
    expect(result.replaceAll('\r', '\n')).not.toContain('"usage"');
    expect(charge).toBe(usageCharge);
  });

  it('id: and retry: fields mixed in: usage read, usage-only frame dropped', async () => {
    f.chat.enqueue(sse([`id: 1\ndata: ${JSON.stringify(chunk({ content: 'Hi' }))}\n\n`, `retry: 1000\nid: 2\ndata: ${JSON.stringify(chunk({}, 'stop'))}\n\n`, `id: 3\ndata: ${JSON.stringify(usageOnly)}\n\n`, 'data: [DONE]\n\n']));
    const { result, charge } = await f.charged(async () => (await send()).text());
    expect(dataOf(result).map((e) => e.choices.length)).toEqual([1, 1]);
    expect(charge).toBe(usageCharge);
  });

  it('frames split into 7-byte writes: client gets the same bytes minus the usage-only frame', async () => {
    const pieces = frames([chunk({ content: 'Hello' }), chunk({ content: ' world' }), chunk({}, 'stop'), usageOnly]);
    const all = pieces.join('');
    const slices: string[] = [];
    for (let i = 0; i < all.length; i += 7) slices.push(all.slice(i, i + 7));
    f.chat.enqueue(sse(slices));
    const { result, charge } = await f.charged(async () => (await send()).text());
    expect(result).toBe([pieces[0], pieces[1], pieces[2], pieces[4]].join(''));
    expect(charge).toBe(usageCharge);
  });

  it('explicit include_usage:false: upstream asked for usage, usage-only chunk dropped', async () => {
    const pieces = frames([chunk({ content: 'Hi' }), chunk({}, 'stop'), usageOnly]);
    f.chat.enqueue(sse(pieces));
    const { result, charge } = await f.charged(async () => (await send({ stream_options: { include_usage: false } })).text());
    expect(f.chat.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    expect(result).toBe([pieces[0], pieces[1], pieces[3]].join(''));
    expect(charge).toBe(usageCharge);
  });

  it('a long stream (>256 KiB of text, 3000 deltas) without usage: output counted exactly', async () => {
    const deltas = Array.from({ length: 3000 }, (_, i) => ` word${i % 97} and some more text here for the count`);
    f.chat.enqueue(sse(frames([...deltas.map((d) => chunk({ content: d })), chunk({}, 'stop')])));
    const { log } = await f.charged(async () => (await send()).text());
    expect(log.usage_source).toBe('local');
    expect(log.output_tokens).toBe(tokens(deltas.join('')));
  });
});

describe('whole answers whose content type is not JSON', () => {
  const body = JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'chat-model', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }], usage });
  for (const contentType of ['text/plain; charset=utf-8', 'text/html']) {
    it(`usage in a 200 JSON answer sent as ${contentType} is still billed`, async () => {
      f.chat.enqueue(bytes(body, contentType));
      const { result, charge } = await f.charged(async () => (await f.post('/v1/chat/completions', { model: 'chat-model', messages: [{ role: 'user', content: 'hi' }] })).text());
      expect(result).toBe(body);
      expect(charge).toBe(usageCharge);
    });
  }

  it('embeddings answer with usage sent as text/plain is still billed its usage', async () => {
    f.chat.enqueue(bytes(JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1] }], model: 'emb-model', usage: { prompt_tokens: 40, total_tokens: 40 } }), 'text/plain'));
    const { charge } = await f.charged(async () => (await f.post('/v1/embeddings', { model: 'emb-model', input: 'x' })).text());
    expect(charge).toBe(expectedCharge(priceMilli['emb-model'], { input: 40 }));
  });
});
