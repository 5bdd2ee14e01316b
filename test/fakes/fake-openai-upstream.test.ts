import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from './fake-openai-upstream.js';
import { readBodyPieces } from './read-body-pieces.js';

let fake: FakeOpenaiUpstream;
let client: OpenAI;

beforeEach(async () => {
  fake = await startFakeOpenaiUpstream();
  client = new OpenAI({ apiKey: 'sk-test-key', baseURL: `${fake.url}/v1`, maxRetries: 0 });
});

afterEach(async () => {
  await fake.close();
});

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
};

function postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** Test assertions walk arbitrary JSON bodies. */
const readJson = (response: Response): Promise<any> => response.json();

/** The data payloads of a whole SSE body, checking OpenAI's framing on the way. */
function sseDataOf(text: string): string[] {
  expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  const events = text.slice(0, -2).split('\n\n');
  for (const event of events) expect(event).toMatch(/^data: [^\n]+$/);
  return events.map((event) => event.slice('data: '.length));
}

describe('fake OpenAI upstream: chat completions', () => {
  it('answers a non-streamed chat completion the SDK parses, with full usage, and records the request', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the fake upstream!' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 17, completion_tokens: 9, total_tokens: 26, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini' } });
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-test-key');
  });

  it('frames a stream as OpenAI does: role chunk, content chunks, finish chunk, usage-only chunk, [DONE]', async () => {
    const response = await postJson('/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hi' }] });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = sseDataOf(await response.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((data) => JSON.parse(data));
    expect(chunks).toHaveLength(1 + 5 + 1 + 1);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'gpt-4o-mini')).toBe(true);
    expect(chunks[0].choices[0]).toEqual({ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null });
    expect(chunks.slice(1, 6).map((chunk) => chunk.choices[0].delta.content).join('')).toBe('Hello from the fake upstream!');
    expect(chunks[6].choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
    expect(chunks.slice(0, 7).every((chunk) => chunk.usage === null)).toBe(true);
    expect(chunks[7].choices).toEqual([]);
    expect(chunks[7].usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 9, total_tokens: 26 });
  });

  it('streams to the SDK with include_usage, and sends no usage when it was not asked for or usageInStream is off', async () => {
    const params = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hi' }], stream: true as const };
    const withUsage = await client.chat.completions.create({ ...params, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of withUsage) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Hello from the fake upstream!');
    expect(usage?.total_tokens).toBe(26);

    const withoutUsage = sseDataOf(await (await postJson('/v1/chat/completions', params)).text());
    expect(withoutUsage.every((data) => data === '[DONE]' || !('usage' in JSON.parse(data)))).toBe(true);

    fake.setOptions({ usageInStream: false });
    const vendorWithoutUsage = sseDataOf(await (await postJson('/v1/chat/completions', { ...params, stream_options: { include_usage: true } })).text());
    expect(vendorWithoutUsage.some((data) => data !== '[DONE]' && JSON.parse(data).usage)).toBe(false);
  });

  it('reports configured cached and reasoning tokens', async () => {
    fake.setOptions({ cachedTokens: 5, reasoningTokens: 3 });
    const completion = await client.chat.completions.create({ model: 'o4-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(5);
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(3);
  });

  it('streams a tool call whose argument fragments the SDK reassembles', async () => {
    const stream = client.chat.completions.stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
    ]);

    const raw = sseDataOf(await (await postJson('/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Weather?' }], tools: [weatherTool] })).text());
    const deltas = raw.slice(0, -1).map((data) => JSON.parse(data).choices[0].delta);
    expect(deltas[0]).toMatchObject({ role: 'assistant', content: null, tool_calls: [{ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } }] });
    const fragments = deltas.slice(1, -1).map((delta) => delta.tool_calls[0].function.arguments);
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.join('')).toBe('{"location":"Paris"}');
  });

  it('answers with a non-streamed tool call, and with text once the last message is a tool result', async () => {
    const call = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather?' }], tools: [weatherTool] });
    const toolCall = call.choices[0]!.message.tool_calls![0]!;
    expect(call.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.choices[0]!.message.content).toBeNull();

    const answer = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather?' }, call.choices[0]!.message, { role: 'tool', tool_call_id: toolCall.id, content: '{"sky":"clear"}' }],
    });
    expect(answer.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Hello from the fake upstream!' } });
  });

  it('truncates to max_tokens words with finish_reason "length", streamed or not', async () => {
    const cut = await client.chat.completions.create({ model: 'gpt-4o-mini', max_tokens: 2, messages: [{ role: 'user', content: 'Hi' }] });
    expect(cut.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'Hello from' } });
    expect(cut.usage?.completion_tokens).toBe(2);

    const streamed = sseDataOf(await (await postJson('/v1/chat/completions', { model: 'm', stream: true, max_completion_tokens: 3, messages: [{ role: 'user', content: 'Hi' }] })).text());
    const chunks = streamed.slice(0, -1).map((data) => JSON.parse(data));
    expect(chunks.map((chunk) => chunk.choices[0].delta.content ?? '').join('')).toBe('Hello from the');
    expect(chunks.at(-1).choices[0].finish_reason).toBe('length');
  });
});

describe('fake OpenAI upstream: other endpoints', () => {
  it('answers legacy completions, streamed like the recorded text_completion stream', async () => {
    const completion = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi' });
    expect(completion).toMatchObject({ object: 'text_completion', choices: [{ text: 'Hello from the fake upstream!', finish_reason: 'stop' }], usage: { total_tokens: 26 } });

    const raw = sseDataOf(await (await postJson('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'x', stream: true, stream_options: { include_usage: true } })).text());
    const chunks = raw.slice(0, -1).map((data) => JSON.parse(data));
    expect(chunks.slice(0, -1).map((chunk) => chunk.choices[0].text).join('')).toBe('Hello from the fake upstream!');
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ object: 'text_completion', choices: [], usage: { prompt_tokens: 17, completion_tokens: 9 } });
  });

  it('returns embeddings as floats, and as base64 float32 (the SDK default) that decode to the same vector', async () => {
    const viaSdk = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['first', 'second'] });
    expect(fake.requests[0]!.body.encoding_format).toBe('base64');
    expect(viaSdk.data.map((item) => item.index)).toEqual([0, 1]);
    expect(viaSdk.usage).toEqual({ prompt_tokens: 17, total_tokens: 17 });

    const asFloats = await readJson(await postJson('/v1/embeddings', { model: 'text-embedding-3-small', input: 'first', encoding_format: 'float' }));
    expect(asFloats).toMatchObject({ object: 'list', model: 'text-embedding-3-small', data: [{ object: 'embedding', index: 0 }] });
    expect(asFloats.data[0].embedding).toHaveLength(8);
    expect(viaSdk.data[0]!.embedding).toEqual(asFloats.data[0].embedding);
    expect(viaSdk.data[1]!.embedding).not.toEqual(asFloats.data[0].embedding);
  });

  it('flags moderation input that mentions killing', async () => {
    const moderation = await client.moderations.create({ model: 'omni-moderation-latest', input: ['I will kill the process', 'hello'] });
    expect(moderation.results.map((result) => result.flagged)).toEqual([true, false]);
    expect(moderation.results[0]!.categories.violence).toBe(true);
    expect(moderation.results[0]!.category_scores.violence).toBeGreaterThan(0.5);
    expect(moderation.id).toMatch(/^modr-/);
  });

  it('reranks documents by relevance, honouring top_n and return_documents', async () => {
    const body = { model: 'rerank-v3.5', query: 'capital of France', documents: ['Bananas are yellow', 'Paris is the capital of France', { text: 'France exports wine' }], top_n: 2 };
    const ranked = await readJson(await postJson('/v1/rerank', body));
    expect(ranked.results.map((result: { index: number }) => result.index)).toEqual([1, 2]);
    expect(ranked.results[0].relevance_score).toBeGreaterThan(ranked.results[1].relevance_score);
    expect(ranked.results[0].document).toBeUndefined();
    expect(ranked.usage).toEqual({ total_tokens: 17 });

    const withDocuments = await readJson(await postJson('/v1/rerank', { ...body, return_documents: true }));
    expect(withDocuments.results[0].document).toEqual({ text: 'Paris is the capital of France' });
  });

  it('lists models through the SDK and answers unknown paths with a 404 OpenAI error body', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toContain('gpt-4o-mini');

    const missing = await postJson('/v1/nothing-here', {});
    expect(missing.status).toBe(404);
    expect(await readJson(missing)).toEqual({ error: { message: 'Invalid URL (POST /v1/nothing-here)', type: 'invalid_request_error', param: null, code: null } });
  });

  it('rejects a body that is not JSON with a 400 OpenAI error body', async () => {
    const response = await fetch(`${fake.url}/v1/chat/completions`, { method: 'POST', body: '{not json' });
    expect(response.status).toBe(400);
    expect((await readJson(response)).error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
    expect(fake.requests[0]!.body).toBe('{not json');
  });
});

describe('fake OpenAI upstream: keys', () => {
  it('answers a wrong key with 401 invalid_api_key in OpenAI\'s body, masking the key', async () => {
    fake.setOptions({ expectedKeys: ['sk-good'] });
    const wrongKey = 'sk-wrong0000000000000000000000000000000000000000abcd';
    const error = await new OpenAI({ apiKey: wrongKey, baseURL: `${fake.url}/v1`, maxRetries: 0 }).models.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error', param: null });
    expect((error as Error).message).toContain(`Incorrect API key provided: sk-wrong${'*'.repeat(wrongKey.length - 12)}abcd.`);

    const noKey = await fetch(`${fake.url}/v1/models`);
    expect(noKey.status).toBe(401);
    expect((await readJson(noKey)).error).toMatchObject({ message: expect.stringMatching(/^You didn't provide an API key/), code: null });

    const goodKey = await fetch(`${fake.url}/v1/models`, { headers: { authorization: 'Bearer sk-good' } });
    expect(goodKey.status).toBe(200);
  });
});

describe('fake OpenAI upstream: faults', () => {
  const streamBody = { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] };

  it('answers the next request only with a queued status fault, keeping its headers and body', async () => {
    fake.enqueueFault({ kind: 'status', status: 429, headers: { 'retry-after': '2' } });
    fake.enqueueFault({ kind: 'status', status: 500, body: { error: { message: 'custom', type: 'server_error', param: null, code: null } } });

    const limited = await postJson('/v1/chat/completions', streamBody);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect((await readJson(limited)).error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded', param: null });

    const failed = await postJson('/v1/chat/completions', streamBody);
    expect(failed.status).toBe(500);
    expect((await readJson(failed)).error.message).toBe('custom');

    const healthy = await postJson('/v1/chat/completions', streamBody);
    expect(healthy.status).toBe(200);
    await healthy.text();
    expect(fake.requests).toHaveLength(3);
  });

  it('resets the connection before any header, after recording the request', async () => {
    fake.enqueueFault({ kind: 'reset-before-headers' });
    await expect(postJson('/v1/chat/completions', streamBody)).rejects.toThrow();
    expect(fake.requests[0]!.body).toMatchObject({ model: 'gpt-4o-mini' });
  });

  it('cuts a stream right after its first chunk', async () => {
    fake.enqueueFault({ kind: 'cut-after-first-chunk' });
    const response = await postJson('/v1/chat/completions', streamBody);
    expect(response.status).toBe(200);
    const { pieces, error } = await readBodyPieces(response);
    expect(error).toBeDefined();
    const received = pieces.map((piece) => piece.text).join('');
    expect(received).toMatch(/^data: \{[^\n]*"role":"assistant"[^\n]*\}\n\n$/);
  });

  it('cuts a JSON body halfway', async () => {
    fake.enqueueFault({ kind: 'cut-after-first-chunk' });
    const response = await postJson('/v1/chat/completions', { ...streamBody, stream: false });
    await expect(response.text()).rejects.toThrow();
  });

  it('waits before sending headers on slow-first-byte', async () => {
    fake.enqueueFault({ kind: 'slow-first-byte', delayMs: 150 });
    const started = performance.now();
    const response = await postJson('/v1/chat/completions', streamBody);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(sseDataOf(await response.text()).at(-1)).toBe('[DONE]');
  });

  it('stalls after the first chunk, then finishes the stream', async () => {
    fake.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 200 });
    const response = await postJson('/v1/chat/completions', streamBody);
    const { pieces, error } = await readBodyPieces(response);
    expect(error).toBeUndefined();
    expect(pieces[0]!.text).toMatch(/"role":"assistant"/);
    const secondAt = pieces.find((piece, index) => index > 0)!.at;
    expect(secondAt - pieces[0]!.at).toBeGreaterThanOrEqual(180);
    expect(sseDataOf(pieces.map((piece) => piece.text).join('')).at(-1)).toBe('[DONE]');
  });

  it('spaces chunks by chunkDelayMs', async () => {
    fake.setOptions({ chunkDelayMs: 20 });
    const started = performance.now();
    const response = await postJson('/v1/chat/completions', streamBody);
    sseDataOf(await response.text());
    expect(performance.now() - started).toBeGreaterThanOrEqual(7 * 20 - 10); // 8 events, 7 gaps
  });

  it('closes promptly while a stream is stalled, and close() may be called again', async () => {
    fake.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 60_000 });
    const response = await postJson('/v1/chat/completions', streamBody);
    const reading = readBodyPieces(response);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await fake.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect((await reading).error).toBeDefined();
  });
});
