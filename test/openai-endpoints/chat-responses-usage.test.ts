import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bytes, expectedCharge, frames, json, priceMilli, sse, startEndpointsFixture, tokens, type EndpointsFixture } from './endpoints-fixture.js';

let f: EndpointsFixture;
beforeAll(async () => {
  f = await startEndpointsFixture();
});
afterAll(async () => {
  await f?.close();
});
beforeEach(() => f.reset());

const chatPrice = priceMilli['chat-model'];
const usage = { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200, prompt_tokens_details: { cached_tokens: 400, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 50, audio_tokens: 0 } };
const usageCharge = expectedCharge(chatPrice, { input: 1000, cacheRead: 400, output: 200 });
const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'chat-model', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
const usageOnly = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'chat-model', choices: [], usage };
const whole = (content: string, extra: object = {}) => ({ id: 'chatcmpl-2', object: 'chat.completion', created: 1, model: 'chat-model', choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }], ...extra });

describe('chat completions: passthrough, n > 1, stream_options', () => {
  it('logprobs, audio and multimodal parts, unknown fields: client bytes go upstream untouched; answer relayed byte-exact', async () => {
    const answer = `${JSON.stringify(whole('hi', { usage }), null, 2)}\n`;
    f.chat.enqueue(bytes(answer));
    const body = {
      model: 'chat-model', max_completion_tokens: 300, logprobs: true, top_logprobs: 3, n: 2, modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' }, x_vendor: { deep: [1, { a: null }] },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }, { type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } }, { type: 'file', file: { file_id: 'file-1' } }] }],
    };
    const raw = JSON.stringify(body, null, 1);
    const { result, charge } = await f.charged(async () => (await f.post('/v1/chat/completions', raw)).text());
    expect(f.chat.requests[0]!.rawBody).toBe(raw);
    expect(result).toBe(answer);
    expect(charge).toBe(usageCharge);
  });

  it('n=2 non-stream without usage: both choices counted locally', async () => {
    const body = { id: 'c', object: 'chat.completion', created: 1, model: 'chat-model', choices: [0, 1].map((index) => ({ index, message: { role: 'assistant', content: index === 0 ? 'Hello there friend' : 'Goodbye now' }, finish_reason: 'stop' })) };
    f.chat.enqueue(json(body));
    const { result, log } = await f.charged(() => f.client.chat.completions.create({ model: 'chat-model', n: 2, messages: [{ role: 'user', content: 'Say hello' }] }));
    expect(result.choices).toHaveLength(2);
    expect(log.usage_source).toBe('local');
    expect(log.output_tokens).toBe(tokens('Hello there friend') + tokens('Goodbye now'));
    expect(log.input_tokens).toBe(tokens('Say hello') + 4);
  });

  it('SDK stream: other stream_options kept, include_usage added, usage-only chunk dropped, content byte-exact', async () => {
    const pieces = frames([chunk({ role: 'assistant', content: '' }, null, { usage: null }), chunk({ content: 'Hel' }, null, { usage: null }), chunk({ content: 'lo' }, null, { usage: null }), chunk({}, 'stop', { usage: null }), usageOnly]);
    f.chat.enqueue(sse(pieces));
    const { result, charge } = await f.charged(async () => {
      const response = await f.client.chat.completions.create({ model: 'chat-model', stream: true, stream_options: { include_obfuscation: false } as any, messages: [{ role: 'user', content: 'hi' }] }).asResponse();
      return response.text();
    });
    expect(f.chat.requests[0]!.body.stream_options).toEqual({ include_obfuscation: false, include_usage: true });
    expect(result).toBe([pieces[0], pieces[1], pieces[2], pieces[3], pieces[5]].join(''));
    expect(charge).toBe(usageCharge);
  });

  it('n=2 stream with include_usage: usage chunk kept and charged', async () => {
    const c2 = (index: number, content: string) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'chat-model', choices: [{ index, delta: { content }, finish_reason: null }] });
    const pieces = frames([c2(0, 'a'), c2(1, 'b'), usageOnly]);
    f.chat.enqueue(sse(pieces));
    const { result, charge } = await f.charged(async () => (await f.post('/v1/chat/completions', { model: 'chat-model', n: 2, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] })).text());
    expect(result).toBe(pieces.join(''));
    expect(charge).toBe(usageCharge);
  });
});

describe('streamed usage in unusual framing', () => {
  const send = () => f.post('/v1/chat/completions', { model: 'chat-model', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  const contentOf = (text: string) =>
    text
      .replaceAll('\r\n', '\n')
      .split('\n\n')
      .map((event) => event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.replace(/^data: ?/, '')).join('\n'))
      .filter((d) => d !== '' && d !== '[DONE]')
      .map((d) => JSON.parse(d));

  it('CRLF framing throughout: usage found, usage-only chunk dropped', async () => {
    f.chat.enqueue(sse([chunk({ content: 'Hi' }), chunk({}, 'stop'), usageOnly, '[DONE]'].map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\r\n\r\n`)));
    const { result, charge } = await f.charged(async () => (await send()).text());
    const events = contentOf(result);
    expect(events).toHaveLength(2);
    expect(events.every((e) => e.usage === undefined)).toBe(true);
    expect(result.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(charge).toBe(usageCharge);
  });

  it('comments dropped, event: lines kept, a pretty-printed multi-line usage event read and charged', async () => {
    const pretty = JSON.stringify(usageOnly, null, 2).split('\n').map((line) => `data: ${line}`).join('\n');
    f.chat.enqueue(sse([`data: ${JSON.stringify(chunk({ content: 'Hi' }))}\n\n`, ': keep-alive\n\n', `event: message\ndata: ${JSON.stringify(chunk({}, 'stop'))}\n\n`, `${pretty}\n\n`, 'data: [DONE]\n\n']));
    const { result, charge } = await f.charged(async () => (await send()).text());
    expect(result).not.toContain('keep-alive');
    expect(contentOf(result).map((e) => e.choices[0]?.delta.content ?? e.choices[0]?.finish_reason)).toEqual(['Hi', 'stop']);
    expect(charge).toBe(usageCharge);
  });

  it('usage on the final choice chunk, pretty-printed across data: lines, is charged', async () => {
    const finalChunk = JSON.stringify(chunk({}, 'stop', { usage }), null, 1).split('\n').map((line) => `data:${line}`).join('\n');
    f.chat.enqueue(sse([`data: ${JSON.stringify(chunk({ content: 'Hi' }))}\n\n`, `${finalChunk}\n\n`, 'data: [DONE]\n\n']));
    const { charge } = await f.charged(async () => (await send()).text());
    expect(charge).toBe(usageCharge);
  });

  it('"usage" written inside the content text never counts (no real usage: counted locally)', async () => {
    const text = 'Here: "usage": {"prompt_tokens": 999999, "completion_tokens": 999999}';
    f.chat.enqueue(sse(frames([chunk({ content: 'Start' }), chunk({ content: text }), chunk({}, 'stop', { usage: null })])));
    const { charge, log } = await f.charged(async () => (await send()).text());
    expect(log.usage_source).toBe('local');
    expect(log.output_tokens).toBe(tokens(`Start${text}`));
    expect(charge).toBe(expectedCharge(chatPrice, { input: tokens('hi') + 4, output: tokens(`Start${text}`) }));
  });

  it('usage: null on every chunk: the real usage on the last chunk is charged', async () => {
    f.chat.enqueue(sse(frames([chunk({ content: 'Hi' }, null, { usage: null }), chunk({}, 'stop', { usage: null }), usageOnly])));
    const { charge } = await f.charged(async () => (await send()).text());
    expect(charge).toBe(usageCharge);
  });

  it('a "usage" key with a space before the colon and a tab after it is read and charged', async () => {
    const usageText = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"chat-model","choices":[],"usage" :\t${JSON.stringify(usage)}}`;
    f.chat.enqueue(sse(frames([chunk({ content: 'Hi' }), chunk({}, 'stop'), usageText])));
    const { charge } = await f.charged(async () => (await send()).text());
    expect(charge).toBe(usageCharge);
  });
});

describe('non-streamed usage in unusual places', () => {
  const send = () => f.client.chat.completions.create({ model: 'chat-model', messages: [{ role: 'user', content: 'hi' }] }).asResponse();

  it('pretty-printed `"usage" : {…}`: relayed byte-exact and charged', async () => {
    const text = JSON.stringify(whole('Hi', { usage }), null, 2).replace('"usage":', '"usage" :');
    f.chat.enqueue(bytes(text));
    const { result, charge } = await f.charged(async () => (await send()).text());
    expect(result).toBe(text);
    expect(charge).toBe(usageCharge);
  });

  it('usage: null with "usage" inside the content text: counted locally', async () => {
    const content = '{"usage":{"prompt_tokens":999999,"completion_tokens":999999}}';
    f.chat.enqueue(json(whole(content, { usage: null })));
    const { charge, log } = await f.charged(async () => (await send()).text());
    expect(log.usage_source).toBe('local');
    expect(charge).toBe(expectedCharge(chatPrice, { input: tokens('hi') + 4, output: tokens(content) }));
  });

  it('content text ending in a backslash and holding "usage" key-like text does not hide the real usage', async () => {
    const content = 'path C:\\ "usage":{"prompt_tokens":999999} \\';
    f.chat.enqueue(json({ ...whole(content), usage }));
    const { charge } = await f.charged(async () => (await send()).text());
    expect(charge).toBe(usageCharge);
  });

  it('the root usage is charged, not a nested "usage" object after it', async () => {
    const body = { id: 'x', object: 'chat.completion', usage, created: 1, model: 'chat-model', choices: whole('Hi').choices, x_meta: { usage: { prompt_tokens: 999999, completion_tokens: 999999 } } };
    f.chat.enqueue(json(body));
    const { charge } = await f.charged(async () => (await send()).text());
    expect(charge).toBe(usageCharge);
  });

  it('a very large answer (6 MB) with usage at the end: relayed whole with its content-length, charged its usage', async () => {
    const text = JSON.stringify(whole('word '.repeat(1_200_000), { usage }));
    f.chat.enqueue(bytes([text.slice(0, 3_000_000), text.slice(3_000_000)]));
    const { result, charge } = await f.charged(async () => {
      const response = await send();
      return { length: response.headers.get('content-length'), body: await response.text() };
    });
    expect(result.body.length).toBe(text.length);
    expect(result.body === text).toBe(true);
    expect(result.length).toBe(String(Buffer.byteLength(text)));
    expect(charge).toBe(usageCharge);
  });

  it('a large answer (400 KB of text) without usage: counted exactly', async () => {
    const content = 'The quick brown fox jumps over the lazy dog. '.repeat(9000);
    f.chat.enqueue(json(whole(content)));
    const { log } = await f.charged(async () => (await send()).text());
    expect(log.usage_source).toBe('local');
    expect(log.output_tokens).toBe(tokens(content));
  });
});

describe('responses and compaction', () => {
  const recordings = new URL('../../../shared/reference/recorded/openai-responses/', import.meta.url);
  const respUsage = { input_tokens: 100, input_tokens_details: { cached_tokens: 40 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 30 }, total_tokens: 150 };
  const respCharge = expectedCharge(priceMilli['resp-model'], { input: 100, cacheRead: 40, output: 50 });

  it('non-stream to a Responses channel with tools and unknown fields: bytes both ways, cached+reasoning charged', async () => {
    const recorded = JSON.parse(readFileSync(new URL('openai-reasoning-encrypted-content.1.json', recordings), 'utf8'));
    const answer = `${JSON.stringify({ ...recorded, model: 'resp-model', usage: respUsage }, null, 2)}\n`;
    f.resp.enqueue(bytes(answer));
    const body = { model: 'resp-model', input: 'hi', max_output_tokens: 500, tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false }], reasoning: { effort: 'high' }, x_custom: 1 };
    const { result, charge } = await f.charged(async () => f.client.responses.create(body as any).asResponse());
    expect(await result.text()).toBe(answer);
    expect(f.resp.requests[0]!.path).toBe('/v1/responses');
    expect(f.resp.requests[0]!.body).toEqual(body);
    expect(charge).toBe(respCharge);
  });

  it('stream to a Responses channel (recorded events): relayed byte-exact, charged from response.completed', async () => {
    const lines = readFileSync(new URL('openai-reasoning-encrypted-content.1.chunks.txt', recordings), 'utf8').trim().split('\n');
    // The file holds four recorded streams one after another: take the first (up to its response.completed).
    const events = lines.map((line) => JSON.parse(line));
    events.splice(events.findIndex((e) => e.type === 'response.completed') + 1);
    const last = events.at(-1);
    last.response.usage = respUsage;
    const pieces = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    f.resp.enqueue(sse(pieces));
    const { result, charge, log } = await f.charged(async () => {
      const response = await f.client.responses.create({ model: 'resp-model', input: 'hi', stream: true }).asResponse();
      return response.text();
    });
    expect(result).toBe(pieces.join(''));
    expect({ input: log.input_tokens, cacheRead: log.cache_read_tokens, output: log.output_tokens, source: log.usage_source }).toEqual({ input: 100, cacheRead: 40, output: 50, source: 'upstream' });
    expect(charge).toBe(respCharge);
  });

  it('responses with tools to a Chat channel (converted, streamed): usage with cached and reasoning tokens charged', async () => {
    const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } };
    f.chat.enqueue(sse(frames([chunk({ role: 'assistant', tool_calls: [call] }), chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }), chunk({}, 'tool_calls'), usageOnly])));
    const { result, charge } = await f.charged(async () => {
      const seen: string[] = [];
      for await (const event of await f.client.responses.create({ model: 'chat-model', input: 'weather?', stream: true, tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }] })) seen.push(event.type);
      return seen;
    });
    expect(result).toContain('response.function_call_arguments.done');
    expect(f.chat.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    expect(charge).toBe(usageCharge);
  });

  it('compact: routed and priced as <model>-openai-compact, plain model upstream, usage charged', async () => {
    const answer = JSON.stringify({ id: 'resp_c', object: 'response.compaction', created_at: 1, output: [{ type: 'compaction', encrypted_content: 'abc' }], usage: { input_tokens: 300, output_tokens: 40, total_tokens: 340 } });
    f.resp.enqueue(bytes(answer));
    const body = { model: 'resp-model', input: [{ role: 'user', content: 'long conversation' }], instructions: 'be brief' };
    const { result, charge, log } = await f.charged(async () => (await f.post('/v1/responses/compact', body)).text());
    expect(result).toBe(answer);
    expect(f.resp.requests[0]!.path).toBe('/v1/responses/compact');
    expect(f.resp.requests[0]!.body).toEqual(body);
    expect(log.model).toBe('resp-model-openai-compact');
    expect(charge).toBe(expectedCharge(priceMilli['resp-model-openai-compact'], { input: 300, output: 40 }));
  });
});
