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

const cmpUsage = { prompt_tokens: 14, completion_tokens: 16, total_tokens: 30 };
/** usage `'none'`: the upstream reports no usage. */
const completionBody = (model: string, choices: { text: string; index: number }[], usage: unknown = cmpUsage) => ({
  id: 'cmpl-1', object: 'text_completion', created: 1770934485, model,
  choices: choices.map((c) => ({ ...c, logprobs: null, finish_reason: 'stop' })),
  ...(usage === 'none' ? {} : { usage }),
});

describe('legacy completions', () => {
  it('non-stream: model mapped, unknown fields forwarded, bytes relayed, charged prompt+completion', async () => {
    const upstreamText = `${JSON.stringify(completionBody('cmp-upstream', [{ text: ' Hi', index: 0 }, { text: ' Yo', index: 1 }]), null, 2)}\n`;
    f.chat.enqueue(bytes(upstreamText));
    const sent = { model: 'alias-cmp', prompt: ['a', 'b'], n: 2, best_of: 3, logprobs: 2, echo: false, suffix: 'x', max_tokens: 20, x_custom: { nested: [1, 2] } };
    const { result, charge } = await f.charged(() => f.client.completions.create(sent as any).asResponse());
    expect(await result.text()).toBe(upstreamText);
    const up = f.chat.requests[0]!;
    expect(up.path).toBe('/v1/completions');
    expect(up.headers.authorization).toBe('Bearer sk-up-chat');
    expect(up.body).toEqual({ ...sent, model: 'cmp-upstream' });
    expect(charge).toBe(expectedCharge(priceMilli['alias-cmp'], { input: 14, output: 16 }));
  });

  it('stream without include_usage: upstream asked for usage, usage-only chunk dropped, other frames byte-exact', async () => {
    const chunk = (text: string, finish: string | null) => ({ id: 'cmpl-2', object: 'text_completion', created: 1, choices: [{ text, index: 0, logprobs: null, finish_reason: finish }], model: 'cmp-model', usage: null });
    const usageChunk = { id: 'cmpl-2', object: 'text_completion', created: 1, model: 'cmp-model', usage: cmpUsage, choices: [] };
    const pieces = frames([chunk('The', null), chunk(' holiday', null), chunk(' to', 'length'), usageChunk]);
    f.chat.enqueue(sse(pieces));
    const { result, charge } = await f.charged(async () => (await f.post('/v1/completions', { model: 'cmp-model', prompt: 'Say', stream: true })).text());
    // No max_tokens named: OpenAI's default (16), which the reservation covers, is sent (an upstream's own default may be larger).
    expect(f.chat.requests[0]!.body).toEqual({ model: 'cmp-model', prompt: 'Say', stream: true, stream_options: { include_usage: true }, max_tokens: 16 });
    expect(result).toBe([pieces[0], pieces[1], pieces[2], pieces[4]].join(''));
    expect(charge).toBe(expectedCharge(priceMilli['cmp-model'], { input: 14, output: 16 }));
  });

  it('stream with include_usage: client bytes go upstream untouched (the default max_tokens spliced in) and every frame comes back', async () => {
    const usageChunk = { id: 'c', object: 'text_completion', created: 1, model: 'cmp-model', usage: cmpUsage, choices: [] };
    const pieces = frames([{ id: 'c', object: 'text_completion', created: 1, choices: [{ text: 'x', index: 0, logprobs: null, finish_reason: 'stop' }], model: 'cmp-model', usage: null }, usageChunk]);
    f.chat.enqueue(sse(pieces));
    const raw = '{"model":"cmp-model",  "prompt":"Say", "stream":true,"stream_options":{"include_usage":true},"zz":1}';
    const { result, charge } = await f.charged(async () => (await f.post('/v1/completions', raw)).text());
    expect(f.chat.requests[0]!.rawBody).toBe(`{"max_tokens":16,${raw.slice(1)}`);
    const named = raw.replace('"zz":1', '"max_tokens":7');
    f.chat.enqueue(sse(pieces));
    await f.charged(async () => (await f.post('/v1/completions', named)).text());
    expect(f.chat.requests[1]!.rawBody).toBe(named);
    expect(result).toBe(pieces.join(''));
    expect(charge).toBe(expectedCharge(priceMilli['cmp-model'], { input: 14, output: 16 }));
  });

  it('SDK stream with n=2 and an upstream that reports no usage: every choice is counted locally', async () => {
    const chunk = (text: string, index: number) => ({ id: 'c', object: 'text_completion', created: 1, choices: [{ text, index, logprobs: null, finish_reason: null }], model: 'cmp-model' });
    f.chat.enqueue(sse(frames([chunk(' alpha', 0), chunk(' gamma', 1), chunk(' beta', 0), chunk(' delta', 1)])));
    const { result, charge, log } = await f.charged(async () => {
      const texts = ['', ''];
      for await (const c of await f.client.completions.create({ model: 'cmp-model', prompt: 'Say hello', stream: true, n: 2 })) for (const ch of c.choices) texts[ch.index] += ch.text;
      return texts;
    });
    expect(result).toEqual([' alpha beta', ' gamma delta']);
    expect(log.usage_source).toBe('local');
    expect(log.output_tokens).toBe(tokens(' alpha beta') + tokens(' gamma delta'));
    expect(charge).toBe(expectedCharge(priceMilli['cmp-model'], { input: tokens('Say hello'), output: tokens(' alpha beta') + tokens(' gamma delta') }));
  });

  it('non-stream with prompt array and no usage: prompt counted as the prompts sent (no extra separator tokens)', async () => {
    f.chat.enqueue(json(completionBody('cmp-model', [{ text: ' ok', index: 0 }, { text: ' ok', index: 1 }], 'none')));
    const prompts = ['first prompt', 'second prompt', 'third'];
    const { log } = await f.charged(() => f.client.completions.create({ model: 'cmp-model', prompt: prompts }));
    expect(log.usage_source).toBe('local');
    expect(log.input_tokens).toBe(prompts.reduce((sum, p) => sum + tokens(p), 0));
    expect(log.output_tokens).toBe(tokens(' ok') * 2);
  });

  it('usage with cached tokens (no cache_read price: cached billed at input)', async () => {
    f.chat.enqueue(json(completionBody('cmp-model', [{ text: 'x', index: 0 }], { ...cmpUsage, prompt_tokens_details: { cached_tokens: 10 } })));
    const { charge } = await f.charged(() => f.client.completions.create({ model: 'cmp-model', prompt: 'x' }));
    expect(charge).toBe(expectedCharge(priceMilli['cmp-model'], { input: 14, cacheRead: 10, output: 16 }));
  });
});

describe('embeddings', () => {
  it('SDK default (base64) and array input: forwarded untouched, vectors decoded, charged input only', async () => {
    const vector = [0.25, -0.5, 0.125];
    const b64 = Buffer.from(new Float32Array(vector).buffer).toString('base64');
    f.chat.enqueue(json({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: b64 }, { object: 'embedding', index: 1, embedding: b64 }], model: 'emb-model', usage: { prompt_tokens: 8, total_tokens: 8 } }, true));
    const { result, charge, log } = await f.charged(() => f.client.embeddings.create({ model: 'emb-model', input: ['one', 'two'], dimensions: 3 }));
    expect(result.data.map((d) => d.embedding)).toEqual([vector, vector]);
    const up = f.chat.requests[0]!;
    expect(up.path).toBe('/v1/embeddings');
    expect(up.body).toEqual({ model: 'emb-model', input: ['one', 'two'], dimensions: 3, encoding_format: 'base64' });
    expect(log.output_tokens).toBe(0);
    expect(charge).toBe(expectedCharge(priceMilli['emb-model'], { input: 8 }));
  });

  it('token-array input with float format: raw bytes forwarded and relayed', async () => {
    const answer = `${JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'emb-model', usage: { prompt_tokens: 3, total_tokens: 3 } }, null, 2)}\n`;
    f.chat.enqueue(bytes(answer));
    const raw = '{"model":"emb-model","input":[[1,2,3],[4]],"encoding_format":"float","user":"u1"}';
    const { result, charge } = await f.charged(async () => (await f.post('/v1/embeddings', raw)).text());
    expect(f.chat.requests[0]!.rawBody).toBe(raw);
    expect(result).toBe(answer);
    expect(charge).toBe(expectedCharge(priceMilli['emb-model'], { input: 3 }));
  });

  it('string input, upstream reports no usage: the input is counted locally', async () => {
    f.chat.enqueue(json({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1] }], model: 'emb-model' }));
    const input = 'The quick brown fox jumps over the lazy dog';
    const { charge, log } = await f.charged(() => f.client.embeddings.create({ model: 'emb-model', input, encoding_format: 'float' }));
    expect(log.usage_source).toBe('local');
    expect(log.input_tokens).toBe(tokens(input));
    expect(charge).toBe(expectedCharge(priceMilli['emb-model'], { input: tokens(input) }));
  });

  it('token-array input, upstream reports no usage: the tokens sent are the prompt (not charged zero)', async () => {
    f.chat.enqueue(json({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1] }], model: 'emb-model' }));
    const { charge, log } = await f.charged(async () => (await f.post('/v1/embeddings', { model: 'emb-model', input: [1, 2, 3, 4, 5, 6], encoding_format: 'float' })).json());
    expect(log.usage_source).toBe('local');
    expect(log.input_tokens).toBe(6);
    expect(charge).toBe(expectedCharge(priceMilli['emb-model'], { input: 6 }));
  });

  it('legacy /v1/engines/{model}/embeddings: path model routed, mapped, sent to /v1/embeddings', async () => {
    f.chat.enqueue(json({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1] }], model: 'emb-upstream', usage: { prompt_tokens: 5, total_tokens: 5 } }));
    const { result, charge, log } = await f.charged(async () => f.post('/v1/engines/alias-emb/embeddings', { input: 'three', encoding_format: 'float' }));
    expect(result.status).toBe(200);
    const up = f.chat.requests[0]!;
    expect(up.path).toBe('/v1/embeddings');
    expect(up.body).toEqual({ input: 'three', encoding_format: 'float', model: 'emb-upstream' });
    expect(log.model).toBe('alias-emb');
    expect(charge).toBe(expectedCharge(priceMilli['alias-emb'], { input: 5 }));
  });
});

describe('moderations and rerank (per-call)', () => {
  it('SDK moderations without a model, array input: default model sent, bytes relayed, one per-call charge', async () => {
    const answer = `${JSON.stringify({ id: 'modr-1', model: 'omni-moderation-latest', results: [1, 2, 3].map(() => ({ flagged: false, categories: { hate: false }, category_scores: { hate: 0.0001 } })) }, null, 2)}\n`;
    f.chat.enqueue(bytes(answer));
    const { result, charge } = await f.charged(() => f.client.moderations.create({ input: ['a', 'b', 'c'] }).asResponse());
    expect(await result.text()).toBe(answer);
    expect(f.chat.requests[0]!.path).toBe('/v1/moderations');
    expect(f.chat.requests[0]!.body).toEqual({ input: ['a', 'b', 'c'], model: 'omni-moderation-latest' });
    expect(charge).toBe(expectedCharge(priceMilli['omni-moderation-latest']));
  });

  it('moderations with multimodal input and an explicit model: forwarded untouched, per-call charge', async () => {
    f.chat.enqueue(json({ id: 'modr-2', model: 'mod-model', results: [{ flagged: false, categories: {}, category_scores: {} }] }));
    const input = [{ type: 'text', text: 'hello' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }];
    const { charge } = await f.charged(() => f.client.moderations.create({ model: 'mod-model', input: input as any }));
    expect(f.chat.requests[0]!.body).toEqual({ model: 'mod-model', input });
    expect(charge).toBe(expectedCharge(priceMilli['mod-model']));
  });

  it('rerank per call: forwarded untouched, bytes relayed, usage ignored for a per-call price', async () => {
    const answer = JSON.stringify({ id: 'rr-1', results: [{ index: 1, relevance_score: 0.9, document: { text: 'Paris' } }], usage: { total_tokens: 999 } });
    f.chat.enqueue(bytes(answer));
    const body = { model: 'rr-model', query: 'capital of France', documents: ['Berlin', 'Paris'], top_n: 1, return_documents: true, extra: 'kept' };
    const { result, charge } = await f.charged(async () => (await f.post('/v1/rerank', body)).text());
    expect(result).toBe(answer);
    expect(f.chat.requests[0]!.path).toBe('/v1/rerank');
    expect(f.chat.requests[0]!.body).toEqual(body);
    expect(charge).toBe(expectedCharge(priceMilli['rr-model']));
  });

  it('rerank priced per token bills usage.total_tokens as input', async () => {
    f.chat.enqueue(json({ id: 'rr-2', results: [{ index: 0, relevance_score: 0.5 }], usage: { total_tokens: 37 } }));
    const { charge } = await f.charged(async () => (await f.post('/v1/rerank', { model: 'rr-tok', query: 'q', documents: ['d'] })).text());
    expect(charge).toBe(expectedCharge(priceMilli['rr-tok'], { input: 37 }));
  });
});

describe('unpriced models', () => {
  it('allow_unpriced_models off: 400 price_not_configured and no upstream call', async () => {
    const response = await f.post('/v1/completions', { model: 'unpriced-model', prompt: 'x' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'price_not_configured' } });
    expect(f.chat.requests).toHaveLength(0);
  });

  it('allow_unpriced_models on: served and charged 0', async () => {
    const other = await startEndpointsFixture({ allowUnpriced: true });
    try {
      other.chat.enqueue(json({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1] }], model: 'unpriced-model', usage: { prompt_tokens: 500, total_tokens: 500 } }));
      const before = await other.tokenUsed();
      const response = await other.post('/v1/embeddings', { model: 'unpriced-model', input: 'x' });
      expect(response.status).toBe(200);
      expect((await other.tokenUsed()) - before).toBe(0);
      expect((await other.lastLog()).quota).toBe(0);
    } finally {
      await other.close();
    }
  });
});
