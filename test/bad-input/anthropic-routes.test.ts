import Anthropic, { APIError, AuthenticationError, BadRequestError, NotFoundError, PermissionDeniedError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, refusal, send, startBadInputFixture, withoutCharge, type BadInputFixture } from './bad-input-fixture.js';

const J = JSON.stringify;
const msgs = [{ role: 'user', content: 'hi' }];
const ok = { model: models.claude, max_tokens: 10, messages: msgs };

interface Case {
  name: string;
  body: string;
  status: number;
  /** A word the message must contain (the field at fault). */
  mentions?: string;
}

const cases: Case[] = [
  { name: 'malformed JSON', body: '{"model": "x", ', status: 400 },
  { name: 'JSON array body', body: '[]', status: 400 },
  { name: 'JSON null body', body: 'null', status: 400 },
  { name: 'JSON string body', body: '"hi"', status: 400 },
  { name: 'empty body', body: '', status: 400 },
  { name: 'missing model', body: J({ max_tokens: 10, messages: msgs }), status: 400, mentions: 'model' },
  { name: 'model as number', body: J({ ...ok, model: 5 }), status: 400, mentions: 'model' },
  { name: 'messages as object', body: J({ ...ok, messages: { role: 'user', content: 'hi' } }), status: 400, mentions: 'messages' },
  { name: 'stream "yes"', body: J({ ...ok, stream: 'yes' }), status: 400, mentions: 'stream' },
  { name: 'max_tokens -1', body: J({ ...ok, max_tokens: -1 }), status: 400, mentions: 'max_tokens' },
  { name: 'max_tokens "10"', body: J({ ...ok, max_tokens: '10' }), status: 400, mentions: 'max_tokens' },
  { name: 'max_tokens 2147483648 (one past int32)', body: J({ ...ok, max_tokens: 2_147_483_648 }), status: 400, mentions: 'max_tokens' },
  { name: 'max_tokens 1e300', body: `{"model":"${models.claude}","messages":[{"role":"user","content":"hi"}],"max_tokens":1e300}`, status: 400, mentions: 'max_tokens' },
  { name: 'missing max_tokens', body: J({ model: models.claude, messages: msgs }), status: 400, mentions: 'max_tokens' },
  { name: 'empty messages', body: J({ ...ok, messages: [] }), status: 400, mentions: 'messages' },
  { name: 'system role inside messages', body: J({ ...ok, messages: [{ role: 'system', content: 'hi' }] }), status: 400, mentions: 'role' },
  { name: 'content as number', body: J({ ...ok, messages: [{ role: 'user', content: 5 }] }), status: 400, mentions: 'content' },
  { name: 'unknown model', body: J({ ...ok, model: 'no-such-model' }), status: 400, mentions: 'no-such-model' },
  { name: 'body over max_body_mb', body: J({ ...ok, messages: [{ role: 'user', content: 'x'.repeat(100_000) }] }), status: 413 },
];

describe('/v1/messages refuses bad input in the Anthropic envelope, without charge, open reservation or upstream call', () => {
  let fixture: BadInputFixture;
  let client: Anthropic;
  beforeAll(async () => {
    fixture = await startBadInputFixture();
    client = new Anthropic({ apiKey: keys.good, baseURL: fixture.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it.each(cases)('$name → $status', async ({ body, status, mentions }) => {
    const sent = await withoutCharge(fixture, () => send(fixture, '/v1/messages', { body, auth: null, headers: { 'x-api-key': keys.good, 'anthropic-version': '2023-06-01' } }));
    expect(sent.status).toBe(status);
    const message = expectEnvelope(sent, 'anthropic');
    if (mentions !== undefined) expect(message).toContain(mentions);
  });

  it('a model listed only for another group → 503 overloaded_error (docs/behaviour.md: no channel can serve it here)', async () => {
    const sent = await withoutCharge(fixture, () => send(fixture, '/v1/messages', { body: J({ ...ok, model: models.vipOnly }) }));
    expect(sent.status).toBe(503);
    expect(expectEnvelope(sent, 'anthropic')).toContain(models.vipOnly);
    expect(sent.body.error.type).toBe('overloaded_error');
  });

  it.each([
    { name: 'no key', headers: {} as Record<string, string>, status: 401, type: 'authentication_error' },
    { name: 'unknown x-api-key', headers: { 'x-api-key': keys.unknown }, status: 401, type: 'authentication_error' },
    { name: 'disabled token', headers: { 'x-api-key': keys.disabled }, status: 401, type: 'authentication_error' },
    { name: 'expired token', headers: { 'x-api-key': keys.expired }, status: 401, type: 'authentication_error' },
    { name: 'disabled user', headers: { 'x-api-key': keys.disabledUser }, status: 403, type: 'permission_error' },
    { name: 'key in x-goog-api-key (not a Messages header)', headers: { 'x-goog-api-key': keys.good }, status: 401, type: 'authentication_error' },
  ])('auth: $name → $status $type', async ({ headers, status, type }) => {
    const sent = await withoutCharge(fixture, () => send(fixture, '/v1/messages', { body: J(ok), auth: null, headers: { 'anthropic-version': '2023-06-01', ...headers } }));
    expect(sent.status).toBe(status);
    expectEnvelope(sent, 'anthropic');
    expect(sent.body.error.type).toBe(type);
  });

  describe('the Anthropic SDK surfaces each refusal as its typed error, without charge or upstream call', () => {
    const sdk = (key: string) => new Anthropic({ apiKey: key, baseURL: fixture.url, maxRetries: 0 });
    const hi = [{ role: 'user' as const, content: 'hi' }];

    it('unknown model → BadRequestError naming the model', async () => {
      const error = await refusal(fixture, () => client.messages.create({ model: 'no-such-model', max_tokens: 10, messages: hi }));
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ message: expect.stringContaining('no-such-model') });
    });

    it('unknown key → AuthenticationError', async () => {
      expect(await refusal(fixture, () => sdk(keys.unknown).messages.create({ model: models.claude, max_tokens: 10, messages: hi }))).toBeInstanceOf(AuthenticationError);
    });

    it('model outside model_limits → PermissionDeniedError', async () => {
      expect(await refusal(fixture, () => sdk(keys.restricted).messages.create({ model: models.claude, max_tokens: 10, messages: hi }))).toBeInstanceOf(PermissionDeniedError);
    });

    it('exhausted token, streamed → APIError 402 billing_error', async () => {
      const error = await refusal(fixture, () => sdk(keys.exhausted).messages.create({ model: models.claude, max_tokens: 10, stream: true, messages: hi }));
      expect(error).toBeInstanceOf(APIError);
      expect(error).toMatchObject({ status: 402, error: { error: { type: 'billing_error' } } });
    });

    it('max_tokens 1e300, streamed (the SDK refuses it unstreamed) → BadRequestError, not a retried 500', async () => {
      expect(await refusal(fixture, () => client.messages.create({ model: models.claude, max_tokens: 1e300, stream: true, messages: hi }))).toBeInstanceOf(BadRequestError);
    });

    it('GET /v1/models/{unknown} with x-api-key → NotFoundError', async () => {
      expect(await refusal(fixture, () => client.models.retrieve('no-such-model'))).toBeInstanceOf(NotFoundError);
    });
  });
});
