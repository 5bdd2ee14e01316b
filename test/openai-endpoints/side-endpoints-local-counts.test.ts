/**
 * From the endpoints audit: what the OpenAI side endpoints bill when usage is missing, empty or odd.
 * An echoed prompt (legacy Completions `echo: true`) is not billed again as output; a usage report of all
 * zeros is no report (the request is counted locally, not given away) on completions, embeddings and Chat
 * pass-through, whole or streamed; an embedding is billed its input only, whatever completion_tokens an
 * upstream reports. Also: logprobs are not counted as text, an upstream 400 charges nothing, and rerank's
 * query and documents (strings or `{ text }`) are counted locally. Expected charges come from
 * docs/behaviour.md "Billing" via the fixture's expectedCharge / tokens.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectedCharge, frames, json, priceMilli, sse, startEndpointsFixture, tokens, type EndpointsFixture } from '../openai-endpoints/endpoints-fixture.js';

let f: EndpointsFixture;
beforeAll(async () => {
  f = await startEndpointsFixture();
});
afterAll(async () => {
  await f?.close();
});
beforeEach(() => f.reset());

describe('legacy completions, local counts', () => {
  it('echo: true without usage: the echoed prompt is not billed again as output', async () => {
    const prompt = 'Once upon a time in a land far away';
    const generated = ' there lived a very old dragon.';
    f.chat.enqueue(json({ id: 'c', object: 'text_completion', created: 1, model: 'cmp-model', choices: [{ index: 0, text: prompt + generated, logprobs: null, finish_reason: 'stop' }] }));
    const { charge, log } = await f.charged(() => f.client.completions.create({ model: 'cmp-model', prompt, echo: true, max_tokens: 20 }));
    expect(log.usage_source).toBe('local');
    expect(log.output_tokens).toBe(tokens(generated));
    expect(charge).toBe(expectedCharge(priceMilli['cmp-model'], { input: tokens(prompt), output: tokens(generated) }));
  });

  it('echo: true, streamed without usage: the echoed prompt is not billed again as output', async () => {
    const prompt = 'Once upon a time in a land far away';
    const chunk = (text: string) => ({ id: 'c', object: 'text_completion', created: 1, model: 'cmp-model', choices: [{ index: 0, text, logprobs: null, finish_reason: null }] });
    f.chat.enqueue(sse(frames([chunk(prompt), chunk(' there lived'), chunk(' a dragon.')])));
    const { log } = await f.charged(async () => (await f.post('/v1/completions', { model: 'cmp-model', prompt, echo: true, stream: true, max_tokens: 20 })).text());
    expect(log.usage_source).toBe('local');
    expect(log.output_tokens).toBe(tokens(' there lived a dragon.'));
  });

  it('logprobs without usage: only the text is counted, not the logprobs tokens', async () => {
    const text = ' hello there';
    f.chat.enqueue(json({ id: 'c', object: 'text_completion', created: 1, model: 'cmp-model', choices: [{ index: 0, text, finish_reason: 'stop', logprobs: { tokens: [' hello', ' there'], token_logprobs: [-0.1, -0.2], top_logprobs: [{ ' hello': -0.1, ' hi': -2 }, { ' there': -0.2 }], text_offset: [0, 6] } }] }));
    const { log } = await f.charged(() => f.client.completions.create({ model: 'cmp-model', prompt: 'x', logprobs: 2, max_tokens: 5 }));
    expect(log.output_tokens).toBe(tokens(text));
  });

  it('usage reported as all zeros on a non-empty answer is not a free request (local count, as new-api does)', async () => {
    const prompt = 'Write one line about the sea';
    const text = ' The sea is wide and deep and blue.';
    f.chat.enqueue(json({ id: 'c', object: 'text_completion', created: 1, model: 'cmp-model', choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } }));
    const { charge } = await f.charged(() => f.client.completions.create({ model: 'cmp-model', prompt, max_tokens: 20 }));
    expect(charge).toBe(expectedCharge(priceMilli['cmp-model'], { input: tokens(prompt), output: tokens(text) }));
  });
});

describe('Chat pass-through, usage reported as all zeros', () => {
  const question = 'Tell me about the sea';
  const answer = 'The sea is wide and deep.';
  const chunk = (delta: object, extra: object = {}) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'chat-model', choices: [{ index: 0, delta, finish_reason: null }], ...extra });
  const zeros = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

  it('whole: counted locally, not charged zero', async () => {
    f.chat.enqueue(json({ id: 'c', object: 'chat.completion', created: 1, model: 'chat-model', choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }], usage: zeros }));
    const { charge, log } = await f.charged(() => f.client.chat.completions.create({ model: 'chat-model', messages: [{ role: 'user', content: question }] }));
    // The question and one message's framing (4 tokens), as docs/behaviour.md counts a Chat prompt locally.
    expect({ source: log.usage_source, input: log.input_tokens, output: log.output_tokens }).toEqual({ source: 'local', input: tokens(question) + 4, output: tokens(answer) });
    expect(charge).toBe(expectedCharge(priceMilli['chat-model'], { input: tokens(question) + 4, output: tokens(answer) }));
  });

  it('streamed, zeros in every chunk and no [DONE]: counted locally, and the stream is still whole (a usage report ends it)', async () => {
    f.chat.enqueue(sse(frames([chunk({ content: 'The sea' }, { usage: zeros }), chunk({ content: ' is wide and deep.' }, { usage: zeros }), { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'chat-model', choices: [], usage: zeros }], false)));
    const { result, log } = await f.charged(async () => (await f.post('/v1/chat/completions', { model: 'chat-model', stream: true, messages: [{ role: 'user', content: question }] })).text());
    expect(result).not.toContain('stream_interrupted');
    expect(log.usage_source).toBe('local');
    expect(log.output_tokens).toBe(tokens(answer));
  });
});

describe('embeddings', () => {
  it('usage with completion_tokens: an embedding is billed its input only (no output at the output price)', async () => {
    f.chat.enqueue(json({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1] }], model: 'emb-model', usage: { prompt_tokens: 8, completion_tokens: 8, total_tokens: 16 } }));
    const { charge, log } = await f.charged(() => f.client.embeddings.create({ model: 'emb-model', input: 'eight tokens of text here ok', encoding_format: 'float' }));
    expect(log.output_tokens).toBe(0);
    expect(charge).toBe(expectedCharge(priceMilli['emb-model'], { input: 8 }));
  });

  it('usage reported as zeros for a non-empty input: the input is counted locally (not charged zero)', async () => {
    const input = ['The quick brown fox', 'jumps over the lazy dog'];
    f.chat.enqueue(json({ object: 'list', data: input.map((_, index) => ({ object: 'embedding', index, embedding: [0.1] })), model: 'emb-model', usage: { prompt_tokens: 0, total_tokens: 0 } }));
    const { charge } = await f.charged(() => f.client.embeddings.create({ model: 'emb-model', input, encoding_format: 'float' }));
    expect(charge).toBe(expectedCharge(priceMilli['emb-model'], { input: tokens(input[0]!) + tokens(input[1]!) }));
  });

  it('an upstream 400 (dimensions out of range) is relayed as a 400 and charges nothing', async () => {
    f.chat.enqueue({ status: 400, json: { error: { message: 'dimensions must be at least 1', type: 'invalid_request_error', param: 'dimensions', code: null } } });
    const { result, charge } = await f.charged(async () => f.post('/v1/embeddings', { model: 'emb-model', input: 'x', dimensions: -1 }));
    expect(result.status).toBe(400);
    const body = (await result.json()) as { error: { message: string; type: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(charge).toBe(0);
  });
});

describe('rerank and moderations priced per token, upstream without usage', () => {
  it('rerank: query and each document counted locally (documents as strings)', async () => {
    f.chat.enqueue(json({ id: 'rr', results: [{ index: 0, relevance_score: 0.5 }] }));
    const query = 'What is the capital of France?';
    const documents = ['Paris is the capital of France.', 'Berlin is the capital of Germany.'];
    const { charge, log } = await f.charged(async () => (await f.post('/v1/rerank', { model: 'rr-tok', query, documents })).text());
    expect(log.usage_source).toBe('local');
    expect(charge).toBe(expectedCharge(priceMilli['rr-tok'], { input: tokens(query) + tokens(documents[0]!) + tokens(documents[1]!) }));
  });

  it('rerank: documents given as { text } objects (Cohere v1 / Jina) are counted too', async () => {
    f.chat.enqueue(json({ id: 'rr', results: [{ index: 0, relevance_score: 0.5 }] }));
    const query = 'What is the capital of France?';
    const documents = [{ text: 'Paris is the capital of France.' }, { text: 'Berlin is the capital of Germany.' }];
    const { charge } = await f.charged(async () => (await f.post('/v1/rerank', { model: 'rr-tok', query, documents })).text());
    expect(charge).toBe(expectedCharge(priceMilli['rr-tok'], { input: tokens(query) + tokens(documents[0]!.text) + tokens(documents[1]!.text) }));
  });
});
