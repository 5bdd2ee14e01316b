import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readBodyPieces } from './read-body-pieces.js';
import { startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream.js';
import { anthropicStream, chatStream, chatWhole, errorReply, geminiStream, replyAsAsked, responsesStream, type Answer } from './scripted-vendor-wire.js';

let upstream: ScriptedUpstream;

beforeEach(async () => {
  upstream = await startScriptedUpstream();
});

afterEach(async () => {
  await upstream.close();
});

const post = (path: string, body: unknown, init: RequestInit = {}): Promise<Response> =>
  fetch(`${upstream.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-test': 'yes' }, body: JSON.stringify(body), ...init });

describe('scripted upstream: queue and records', () => {
  it('answers queued replies in order, records every request, and answers 500 when nothing is queued', async () => {
    upstream.enqueue({ json: { n: 1 } }, { status: 201, headers: { 'x-extra': 'on' }, json: { n: 2 } });
    const first = await post('/v1/a?q=1', { stream: false });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(await first.json()).toEqual({ n: 1 });
    const second = await post('/v1/b', { hello: 'there' });
    expect([second.status, second.headers.get('x-extra'), await second.json()]).toEqual([201, 'on', { n: 2 }]);
    const third = await post('/v1/c', {});
    expect(third.status).toBe(500);
    expect(await third.json()).toMatchObject({ error: { message: 'scripted upstream: no reply queued' } });
    expect(upstream.requests.map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      { method: 'POST', path: '/v1/a?q=1', body: { stream: false } },
      { method: 'POST', path: '/v1/b', body: { hello: 'there' } },
      { method: 'POST', path: '/v1/c', body: {} },
    ]);
    expect(upstream.requests[0]!.headers['x-test']).toBe('yes');
  });

  it('keeps each body exactly as received (rawBody) beside the parsed one', async () => {
    upstream.setFallback({ json: {} });
    const raw = '{"model":"m",  "n":1.0,\n"x":"\\u00e9"}';
    await post('/', undefined, { body: raw });
    await fetch(upstream.url);
    expect(upstream.requests.map(({ body, rawBody }) => ({ body, rawBody }))).toEqual([
      { body: { model: 'm', n: 1, x: 'é' }, rawBody: raw },
      { body: undefined, rawBody: '' },
    ]);
  });

  it('builds a reply from the request when given a function, falls back when the queue is empty, and drops the queue on clearQueue', async () => {
    upstream.setFallback({ json: { from: 'fallback' } });
    upstream.enqueue((request) => ({ json: { echoed: request.body.word } }), { json: { never: 'sent' } });
    expect(await (await post('/', { word: 'ping' })).json()).toEqual({ echoed: 'ping' });
    upstream.clearQueue();
    expect(await (await post('/', {})).json()).toEqual({ from: 'fallback' });
  });

  it('answers a request as it asked: replyAsAsked streams only when the body says stream: true', async () => {
    upstream.setFallback(replyAsAsked('openai-chat', { text: 'Hi', usage: { input: 1, output: 1 } }));
    expect((await post('/v1/chat/completions', { stream: false })).headers.get('content-type')).toBe('application/json');
    expect((await post('/v1/chat/completions', { stream: true })).headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  });
});

describe('scripted upstream: framing and endings', () => {
  it('frames SSE with \\n, or \\r\\n when crlf, an event line when named, and string data as is', async () => {
    upstream.enqueue({ sse: [{ event: 'ping', data: { a: 1 } }, { data: '[DONE]' }] }, { sse: [{ data: { b: 2 } }], crlf: true });
    expect(await (await post('/', {})).text()).toBe('event: ping\ndata: {"a":1}\n\ndata: [DONE]\n\n');
    expect(await (await post('/', {})).text()).toBe('data: {"b":2}\r\n\r\n');
  });

  it('writes each piece apart, delayMs between them', async () => {
    upstream.enqueue({ raw: ['one', 'two', 'three'], delayMs: 30 });
    const { pieces, error } = await readBodyPieces(await post('/', {}));
    expect(error).toBeUndefined();
    expect(pieces.map((piece) => piece.text)).toEqual(['one', 'two', 'three']);
    expect(pieces[2]!.at - pieces[0]!.at).toBeGreaterThanOrEqual(50);
  });

  it('ends a cut stream with a clean EOF (end), a reset after its pieces (reset), or a reset before the headers', async () => {
    upstream.enqueue({ raw: ['data: 1\n\n'], ending: 'end' }, { raw: ['data: 1\n\n'], ending: 'reset' }, { ending: 'reset' });
    const clean = await readBodyPieces(await post('/', {}));
    expect([clean.pieces.map((piece) => piece.text).join(''), clean.error]).toEqual(['data: 1\n\n', undefined]);
    const reset = await readBodyPieces(await post('/', {}));
    expect(reset.pieces.map((piece) => piece.text).join('')).toBe('data: 1\n\n');
    expect(reset.error).toBeInstanceOf(Error);
    await expect(post('/', {})).rejects.toThrow();
  });

  it('hangs after its pieces until the client leaves', async () => {
    upstream.enqueue({ raw: ['{"id":'], headers: { 'content-type': 'application/json' }, ending: 'hang' });
    const controller = new AbortController();
    const response = await post('/', {}, { signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"id":');
    const next = reader.read();
    const outcome = await Promise.race([next.then(() => 'more'), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 150))]);
    expect(outcome).toBe('still waiting');
    controller.abort();
    await expect(next).rejects.toThrow();
  });
});

describe('scripted vendor wire: the official SDKs read each vendor reply', () => {
  const answer: Answer = {
    text: 'Checking the weather.',
    tools: [{ id: 'call_1', name: 'get_weather', args: '{"location":"Paris"}' }],
    stop: 'tool',
    usage: { input: 100, cacheRead: 40, output: 30, reasoning: 10 },
  };

  it('OpenAI Chat Completions: a stream and a whole answer', async () => {
    const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${upstream.url}/v1`, maxRetries: 0 });
    upstream.enqueue(chatStream(answer), chatWhole(answer));
    const streamed = await openai.chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
    const whole = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    for (const completion of [streamed, whole]) {
      expect(completion.choices[0]!.message.content).toBe('Checking the weather.');
      expect(completion.choices[0]!.message.tool_calls?.map((call: any) => [call.id, call.function.name, call.function.arguments])).toEqual([['call_1', 'get_weather', '{"location":"Paris"}']]);
      expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
      expect(completion.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 40 }, completion_tokens_details: { reasoning_tokens: 10 } });
    }
  });

  it('OpenAI Responses: a stream', async () => {
    const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${upstream.url}/v1`, maxRetries: 0 });
    upstream.enqueue(responsesStream(answer));
    const response = await openai.responses.stream({ model: 'm', input: 'hi' }).finalResponse();
    expect(response.output_text).toBe('Checking the weather.');
    expect(response.output.filter((item) => item.type === 'function_call').map((item: any) => [item.call_id, item.arguments])).toEqual([['call_1', '{"location":"Paris"}']]);
    expect(response.usage).toMatchObject({ input_tokens: 100, output_tokens: 30, input_tokens_details: { cached_tokens: 40 } });
  });

  it('Anthropic Messages: a stream, with input_tokens leaving the cache out', async () => {
    const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: upstream.url, maxRetries: 0 });
    upstream.enqueue(anthropicStream({ ...answer, usage: { input: 100, cacheRead: 40, cacheWrite: 10, output: 30 } }));
    const message = await anthropic.messages.stream({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(message.content).toMatchObject([
      { type: 'text', text: 'Checking the weather.' },
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'Paris' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 50, cache_read_input_tokens: 40, cache_creation_input_tokens: 10, output_tokens: 30 });
  });

  it('Gemini: a stream, with thoughts outside candidatesTokenCount', async () => {
    const gemini = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: upstream.url } });
    upstream.enqueue(geminiStream(answer));
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await gemini.models.generateContentStream({ model: 'm', contents: 'hi' })) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text ?? '').join('')).toBe('Checking the weather.');
    expect(chunks.flatMap((chunk) => chunk.functionCalls ?? []).map((call) => [call.name, call.args])).toEqual([['get_weather', { location: 'Paris' }]]);
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 100, cachedContentTokenCount: 40, candidatesTokenCount: 20, thoughtsTokenCount: 10 });
  });

  it('terminal: false stops each stream right after its last content delta', async () => {
    const cut = { terminal: false };
    const text = { text: ['Hel', 'lo'], usage: { input: 1, output: 1 } };
    expect(chatStream(text, cut).sse!.map((event: any) => event.data.choices[0].delta)).toEqual([{ role: 'assistant', content: '', refusal: null }, { content: 'Hel' }, { content: 'lo' }]);
    expect(anthropicStream(text, cut).sse!.map((event) => event.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta']);
    expect(responsesStream(text, cut).sse!.map((event) => event.event).at(-1)).toBe('response.output_text.delta');
    expect(geminiStream(text, cut).sse!.map((event: any) => event.data.candidates[0].finishReason)).toEqual([undefined, undefined]);
  });

  it('errorReply writes each vendor\'s error body for a status', async () => {
    const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${upstream.url}/v1`, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: upstream.url, maxRetries: 0 });
    upstream.enqueue(errorReply('openai-chat', 429, 'slow down'), errorReply('anthropic', 529, 'busy'));
    await expect(openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 429, code: 'rate_limit_exceeded', message: '429 slow down' });
    await expect(anthropic.messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 529, error: { error: { type: 'overloaded_error', message: 'busy' } } });
    upstream.enqueue(errorReply('gemini', 503, 'later'));
    expect(await (await post('/v1beta/models/m:generateContent', {})).json()).toEqual({ error: { code: 503, message: 'later', status: 'UNAVAILABLE' } });
  });
});
