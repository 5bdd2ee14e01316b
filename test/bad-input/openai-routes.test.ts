import OpenAI, { APIError, AuthenticationError, BadRequestError, NotFoundError, PermissionDeniedError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, refusal, send, startBadInputFixture, withoutCharge, type BadInputFixture } from './bad-input-fixture.js';

const J = JSON.stringify;
const msgs = [{ role: 'user', content: 'hi' }];
const big = 'x'.repeat(100_000); // max_body_mb is 0.05 in the fixture

interface Case {
  name: string;
  path: string;
  body: string;
  status: number;
  code?: string;
  param?: string;
}

const cases: Case[] = [];
for (const path of ['/v1/chat/completions', '/v1/completions', '/v1/responses', '/v1/embeddings', '/v1/moderations', '/v1/rerank', '/v1/responses/compact', '/v1/responses/input_tokens', '/v1/images/generations', '/v1/images/edits', '/v1/web-reader/read', '/v1/web-search/search']) {
  cases.push(
    { name: `${path}: malformed JSON`, path, body: '{"model": "x", ', status: 400, code: 'invalid_json' },
    { name: `${path}: JSON array body`, path, body: '[]', status: 400 },
    { name: `${path}: JSON null body`, path, body: 'null', status: 400 },
    { name: `${path}: JSON string body`, path, body: '"hello"', status: 400 },
    { name: `${path}: empty body`, path, body: '', status: 400 },
    { name: `${path}: empty object (no model)`, path, body: '{}', status: 400 },
    { name: `${path}: body over max_body_mb`, path, body: J({ model: models.chat, input: big, prompt: big, messages: [{ role: 'user', content: big }] }), status: 413 },
  );
}
cases.push(
  // Chat Completions (spec §4.1)
  { name: 'chat: model as number', path: '/v1/chat/completions', body: J({ model: 5, messages: msgs }), status: 400, param: 'model' },
  { name: 'chat: messages as object', path: '/v1/chat/completions', body: J({ model: models.chat, messages: { role: 'user', content: 'hi' } }), status: 400, param: 'messages' },
  { name: 'chat: stream "yes"', path: '/v1/chat/completions', body: J({ model: models.chat, messages: msgs, stream: 'yes' }), status: 400, param: 'stream' },
  { name: 'chat: max_tokens -1', path: '/v1/chat/completions', body: J({ model: models.chat, messages: msgs, max_tokens: -1 }), status: 400, param: 'max_tokens' },
  { name: 'chat: max_tokens "100"', path: '/v1/chat/completions', body: J({ model: models.chat, messages: msgs, max_tokens: '100' }), status: 400, param: 'max_tokens' },
  { name: 'chat: max_tokens 1e300', path: '/v1/chat/completions', body: `{"model":"${models.chat}","messages":[{"role":"user","content":"hi"}],"max_tokens":1e300}`, status: 400, param: 'max_tokens' },
  { name: 'chat: max_tokens 2147483648 (one past int32)', path: '/v1/chat/completions', body: J({ model: models.chat, messages: msgs, max_tokens: 2_147_483_648 }), status: 400, param: 'max_tokens' },
  { name: 'chat: max_completion_tokens above 2^53', path: '/v1/chat/completions', body: `{"model":"${models.chat}","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":9007199254740994}`, status: 400, param: 'max_completion_tokens' },
  { name: 'chat (anthropic channel): max_tokens 1e300', path: '/v1/chat/completions', body: `{"model":"${models.claude}","messages":[{"role":"user","content":"hi"}],"max_tokens":1e300}`, status: 400, param: 'max_tokens' },
  { name: 'chat: empty messages', path: '/v1/chat/completions', body: J({ model: models.chat, messages: [] }), status: 400, param: 'messages' },
  { name: 'chat: message null', path: '/v1/chat/completions', body: J({ model: models.chat, messages: [null] }), status: 400, param: 'messages.0' },
  { name: 'chat: unknown role (spec §4.1 roles)', path: '/v1/chat/completions', body: J({ model: models.chat, messages: [{ role: 'wizard', content: 'hi' }] }), status: 400, param: 'messages.0.role' },
  { name: 'chat: content as number (spec §4.1: string or array)', path: '/v1/chat/completions', body: J({ model: models.chat, messages: [{ role: 'user', content: 5 }] }), status: 400, param: 'messages.0.content' },
  { name: 'chat: unknown model', path: '/v1/chat/completions', body: J({ model: 'no-such-model', messages: msgs }), status: 400, code: 'model_not_found' },
  { name: 'chat: empty model', path: '/v1/chat/completions', body: J({ model: '', messages: msgs }), status: 400, param: 'model' },
  { name: 'chat: tools as object', path: '/v1/chat/completions', body: J({ model: models.chat, messages: msgs, tools: {} }), status: 400, param: 'tools' },
  { name: 'chat (stream): unknown model', path: '/v1/chat/completions', body: J({ model: 'no-such-model', messages: msgs, stream: true }), status: 400, code: 'model_not_found' },
  // Images (spec §4.6 / §4.7)
  { name: 'images: unknown model', path: '/v1/images/generations', body: J({ model: 'no-such-model', prompt: 'a cat' }), status: 400, code: 'model_not_found' },
  { name: 'images: n -1', path: '/v1/images/generations', body: J({ model: 'no-such-model', prompt: 'a cat', n: -1 }), status: 400, param: 'n' },
  { name: 'image edits: image missing', path: '/v1/images/edits', body: J({ model: 'no-such-model', prompt: 'a cat' }), status: 400, param: 'image' },
  // Legacy completions
  { name: 'completions: prompt as number', path: '/v1/completions', body: J({ model: models.instruct, prompt: 5 }), status: 400, param: 'prompt' },
  { name: 'completions: max_tokens 0 (a chained Go gateway reads it as no limit)', path: '/v1/completions', body: J({ model: models.instruct, prompt: 'hi', max_tokens: 0 }), status: 400, param: 'max_tokens' },
  { name: 'completions: max_tokens -1', path: '/v1/completions', body: J({ model: models.instruct, prompt: 'hi', max_tokens: -1 }), status: 400, param: 'max_tokens' },
  { name: 'completions: max_tokens 1e300', path: '/v1/completions', body: `{"model":"${models.instruct}","prompt":"hi","max_tokens":1e300}`, status: 400, param: 'max_tokens' },
  { name: 'completions: stream "yes"', path: '/v1/completions', body: J({ model: models.instruct, prompt: 'hi', stream: 'yes' }), status: 400, param: 'stream' },
  { name: 'completions: unknown model', path: '/v1/completions', body: J({ model: 'no-such-model', prompt: 'hi' }), status: 400, code: 'model_not_found' },
  // Responses
  { name: 'responses: model as number', path: '/v1/responses', body: J({ model: 5, input: 'hi' }), status: 400, param: 'model' },
  { name: 'responses: input as number', path: '/v1/responses', body: J({ model: models.chat, input: 5 }), status: 400, param: 'input' },
  { name: 'responses: stream "yes"', path: '/v1/responses', body: J({ model: models.chat, input: 'hi', stream: 'yes' }), status: 400, param: 'stream' },
  { name: 'responses: max_output_tokens -1', path: '/v1/responses', body: J({ model: models.chat, input: 'hi', max_output_tokens: -1 }), status: 400, param: 'max_output_tokens' },
  { name: 'responses: max_output_tokens 1e300', path: '/v1/responses', body: `{"model":"${models.chat}","input":"hi","max_output_tokens":1e300}`, status: 400, param: 'max_output_tokens' },
  { name: 'responses: unknown model', path: '/v1/responses', body: J({ model: 'no-such-model', input: 'hi' }), status: 400, code: 'model_not_found' },
  // Embeddings, moderations, rerank
  { name: 'embeddings: input as number', path: '/v1/embeddings', body: J({ model: models.embedding, input: 5 }), status: 400, param: 'input' },
  { name: 'embeddings: empty input array', path: '/v1/embeddings', body: J({ model: models.embedding, input: [] }), status: 400, param: 'input' },
  { name: 'embeddings: unknown model', path: '/v1/embeddings', body: J({ model: 'no-such-model', input: 'x' }), status: 400, code: 'model_not_found' },
  { name: 'legacy engines embeddings: unknown model in path', path: '/v1/engines/no-such-model/embeddings', body: J({ input: 'x' }), status: 400, code: 'model_not_found' },
  { name: 'moderations: input as number', path: '/v1/moderations', body: J({ input: 5 }), status: 400, param: 'input' },
  { name: 'moderations: model as number', path: '/v1/moderations', body: J({ model: 5, input: 'x' }), status: 400, param: 'model' },
  { name: 'moderations: unknown model', path: '/v1/moderations', body: J({ model: 'no-such-model', input: 'x' }), status: 400, code: 'model_not_found' },
  { name: 'rerank: documents as string', path: '/v1/rerank', body: J({ model: models.rerank, query: 'q', documents: 'a' }), status: 400, param: 'documents' },
  { name: 'rerank: top_n -1', path: '/v1/rerank', body: J({ model: models.rerank, query: 'q', documents: ['a'], top_n: -1 }), status: 400, param: 'top_n' },
  { name: 'rerank: missing query', path: '/v1/rerank', body: J({ model: models.rerank, documents: ['a'] }), status: 400, param: 'query' },
);

describe('OpenAI-style routes refuse bad input in the OpenAI envelope, without charge, open reservation or upstream call', () => {
  let fixture: BadInputFixture;
  let client: OpenAI;
  beforeAll(async () => {
    fixture = await startBadInputFixture();
    client = new OpenAI({ apiKey: keys.good, baseURL: `${fixture.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it.each(cases)('$name → $status', async ({ path, body, status, code, param }) => {
    const sent = await withoutCharge(fixture, () => send(fixture, path, { body }));
    expect(sent.status).toBe(status);
    expect(expectEnvelope(sent, 'openai')).toMatch(/\(request id: [0-9a-f]{32}\)$/);
    if (code !== undefined) expect(sent.body.error.code).toBe(code);
    if (param !== undefined) expect(sent.body.error.param).toBe(param);
  });

  it.each([
    { name: 'a model listed only for another group', path: '/v1/chat/completions', body: J({ model: models.vipOnly, messages: msgs }) },
    { name: 'a model listed only for another group, streamed', path: '/v1/chat/completions', body: J({ model: models.vipOnly, messages: msgs, stream: true }) },
    { name: 'a model served only on another endpoint (claude on /v1/embeddings)', path: '/v1/embeddings', body: J({ model: models.claude, input: 'x' }) },
  ])('$name → 503 model_not_found (docs/behaviour.md: no channel can serve it here)', async ({ path, body }) => {
    const sent = await withoutCharge(fixture, () => send(fixture, path, { body }));
    expect(sent.status).toBe(503);
    expectEnvelope(sent, 'openai');
    expect(sent.body.error).toMatchObject({ type: 'server_error', code: 'model_not_found' });
  });

  describe('the openai SDK surfaces each refusal as its typed error, without charge or upstream call', () => {
    const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: `${fixture.url}/v1`, maxRetries: 0 });
    const hi = [{ role: 'user' as const, content: 'hi' }];

    it('unknown model → BadRequestError with code model_not_found naming the model', async () => {
      const error = await refusal(fixture, () => client.chat.completions.create({ model: 'no-such-model', messages: hi }));
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ code: 'model_not_found', message: expect.stringContaining('no-such-model') });
    });

    it('empty messages → BadRequestError naming param messages', async () => {
      const error = await refusal(fixture, () => client.chat.completions.create({ model: models.chat, messages: [] }));
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ param: 'messages' });
    });

    it('max_tokens 1e300 → BadRequestError naming max_tokens (not a retried 500)', async () => {
      const error = await refusal(fixture, () => client.chat.completions.create({ model: models.chat, messages: hi, max_tokens: 1e300 }));
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ param: 'max_tokens' });
    });

    it('unknown key → AuthenticationError', async () => {
      expect(await refusal(fixture, () => sdk(keys.unknown).embeddings.create({ model: models.embedding, input: 'x' }))).toBeInstanceOf(AuthenticationError);
    });

    it('model outside model_limits → PermissionDeniedError', async () => {
      expect(await refusal(fixture, () => sdk(keys.restricted).responses.create({ model: models.chat, input: 'hi' }))).toBeInstanceOf(PermissionDeniedError);
    });

    it('exhausted token → APIError 402 insufficient_quota', async () => {
      const error = await refusal(fixture, () => sdk(keys.exhausted).completions.create({ model: models.instruct, prompt: 'hi' }));
      expect(error).toBeInstanceOf(APIError);
      expect(error).toMatchObject({ status: 402, code: 'insufficient_quota' });
    });

    it('empty user wallet behind an unlimited token → APIError 402', async () => {
      const error = await refusal(fixture, () => sdk(keys.poorUser).moderations.create({ input: 'hi' }));
      expect(error).toBeInstanceOf(APIError);
      expect(error).toMatchObject({ status: 402 });
    });

    it('GET of a model the key may not use → NotFoundError', async () => {
      expect(await refusal(fixture, () => sdk(keys.restricted).models.retrieve(models.chat))).toBeInstanceOf(NotFoundError);
    });

    it('body over max_body_mb → APIError 413', async () => {
      const error = await refusal(fixture, () => client.embeddings.create({ model: models.embedding, input: big }));
      expect(error).toBeInstanceOf(APIError);
      expect(error).toMatchObject({ status: 413 });
    });
  });
});
