import { ApiError, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, refusal, send, startBadInputFixture, withoutCharge, type BadInputFixture } from './bad-input-fixture.js';

const J = JSON.stringify;
const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
const deep = `${'['.repeat(6000)}${']'.repeat(6000)}`; // 12 KB, well under max_body_mb

interface Case {
  name: string;
  body: string;
  status: number;
  /** A word the message must contain (the field at fault). */
  mentions?: string;
}

const cases: Case[] = [
  { name: 'malformed JSON', body: '{"contents": [', status: 400 },
  { name: 'JSON array body', body: '[]', status: 400 },
  { name: 'JSON null body', body: 'null', status: 400 },
  { name: 'JSON string body', body: '"hi"', status: 400 },
  { name: 'empty body', body: '', status: 400 },
  { name: 'missing contents ({})', body: '{}', status: 400, mentions: 'contents' },
  { name: 'contents as object', body: J({ contents: contents[0] }), status: 400, mentions: 'contents' },
  { name: 'empty contents', body: J({ contents: [] }), status: 400, mentions: 'contents' },
  { name: 'parts as string', body: J({ contents: [{ role: 'user', parts: 'hi' }] }), status: 400, mentions: 'parts' },
  { name: 'maxOutputTokens "5"', body: J({ contents, generationConfig: { maxOutputTokens: '5' } }), status: 400, mentions: 'maxOutputTokens' },
  { name: 'maxOutputTokens -1', body: J({ contents, generationConfig: { maxOutputTokens: -1 } }), status: 400, mentions: 'maxOutputTokens' },
  { name: 'max_output_tokens -1 (snake_case)', body: J({ contents, generation_config: { max_output_tokens: -1 } }), status: 400, mentions: 'maxOutputTokens' },
  { name: 'maxOutputTokens 2147483648 (one past int32)', body: J({ contents, generationConfig: { maxOutputTokens: 2_147_483_648 } }), status: 400, mentions: 'maxOutputTokens' },
  { name: 'maxOutputTokens 1e300', body: `{"contents":${J(contents)},"generationConfig":{"maxOutputTokens":1e300}}`, status: 400, mentions: 'maxOutputTokens' },
  { name: 'deeply nested array in a field (12 KB body)', body: `{"contents":${J(contents)},"tools":${deep}}`, status: 400, mentions: 'nested too deeply' },
  { name: 'unknown role', body: J({ contents: [{ role: 'wizard', parts: [{ text: 'hi' }] }] }), status: 400, mentions: 'wizard' },
  { name: 'body over max_body_mb', body: J({ contents: [{ role: 'user', parts: [{ text: 'x'.repeat(100_000) }] }] }), status: 413 },
];

const actions = [`${models.gemini}:generateContent`, `${models.gemini}:streamGenerateContent?alt=sse`, `${models.gemini}:streamGenerateContent`];

describe('Gemini native routes refuse bad input in the Gemini envelope, without charge, open reservation or upstream call', () => {
  let fixture: BadInputFixture;
  beforeAll(async () => {
    fixture = await startBadInputFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  describe.each(actions)('/v1beta/models/%s', (action) => {
    it.each(cases)('$name → $status', async ({ body, status, mentions }) => {
      const sent = await withoutCharge(fixture, () => send(fixture, `/v1beta/models/${action}`, { body, auth: null, headers: { 'x-goog-api-key': keys.good } }));
      expect(sent.status).toBe(status);
      const message = expectEnvelope(sent, 'gemini');
      if (mentions !== undefined) expect(message).toContain(mentions);
    });
  });

  it('unknown model → 400 INVALID_ARGUMENT naming the model', async () => {
    const sent = await withoutCharge(fixture, () => send(fixture, '/v1beta/models/no-such-model:generateContent', { body: J({ contents }) }));
    expect(sent.status).toBe(400);
    expect(expectEnvelope(sent, 'gemini')).toContain('no-such-model');
  });

  it.each([`${models.vipOnly}:generateContent`, `${models.vipOnly}:streamGenerateContent?alt=sse`])(
    'a model listed only for another group (%s) → 503 UNAVAILABLE (docs/behaviour.md: no channel can serve it here)',
    async (action) => {
      const sent = await withoutCharge(fixture, () => send(fixture, `/v1beta/models/${action}`, { body: J({ contents }) }));
      expect(sent.status).toBe(503);
      expect(expectEnvelope(sent, 'gemini')).toContain(models.vipOnly);
      expect(sent.body.error.status).toBe('UNAVAILABLE');
    },
  );

  it.each([
    { name: 'no key', path: `/v1beta/models/${models.gemini}:generateContent`, headers: {} as Record<string, string>, status: 401 },
    { name: 'unknown ?key=', path: `/v1beta/models/${models.gemini}:generateContent?key=${keys.unknown}`, headers: {}, status: 401 },
    { name: 'unknown x-goog-api-key', path: `/v1beta/models/${models.gemini}:generateContent`, headers: { 'x-goog-api-key': keys.unknown }, status: 401 },
    { name: 'key in x-api-key (not a Gemini header)', path: `/v1beta/models/${models.gemini}:generateContent`, headers: { 'x-api-key': keys.good }, status: 401 },
    { name: 'expired ?key=', path: `/v1beta/models/${models.gemini}:generateContent?key=${keys.expired}`, headers: {}, status: 401 },
    { name: 'disabled x-goog-api-key', path: `/v1beta/models/${models.gemini}:streamGenerateContent?alt=sse`, headers: { 'x-goog-api-key': keys.disabled }, status: 401 },
    { name: 'disabled user', path: `/v1beta/models/${models.gemini}:generateContent`, headers: { 'x-goog-api-key': keys.disabledUser }, status: 403 },
    { name: 'restricted key (model_limits)', path: `/v1beta/models/${models.gemini}:generateContent`, headers: { 'x-goog-api-key': keys.restricted }, status: 403 },
    { name: 'exhausted token', path: `/v1beta/models/${models.gemini}:generateContent`, headers: { 'x-goog-api-key': keys.exhausted }, status: 402 },
  ])('auth: $name → $status', async ({ path, headers, status }) => {
    const sent = await withoutCharge(fixture, () => send(fixture, path, { body: J({ contents }), auth: null, headers }));
    expect(sent.status).toBe(status);
    expectEnvelope(sent, 'gemini');
  });

  it('unknown action → 501 UNIMPLEMENTED naming the action', async () => {
    const sent = await withoutCharge(fixture, () => send(fixture, `/v1beta/models/${models.gemini}:fooBar`, { body: J({ contents }) }));
    expect(sent.status).toBe(501);
    expect(expectEnvelope(sent, 'gemini')).toContain('fooBar');
  });

  describe(':countTokens follows the key\'s model permissions (spec §5.6)', () => {
    it('a key whose model_limits exclude the model → 403', async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, `/v1beta/models/${models.gemini}:countTokens`, { body: J({ contents }), auth: keys.restricted }));
      expect(sent.status).toBe(403);
      expectEnvelope(sent, 'gemini');
    });

    it('a model no channel lists → 400 naming the model', async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, '/v1beta/models/no-such-model:countTokens', { body: J({ contents }) }));
      expect(sent.status).toBe(400);
      expect(expectEnvelope(sent, 'gemini')).toContain('no-such-model');
    });
  });

  describe('the @google/genai SDK surfaces each refusal as ApiError with the status, without charge or upstream call', () => {
    const sdk = (key: string) => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: fixture.url } });

    it('unknown model → ApiError 400 naming the model', async () => {
      const error = await refusal(fixture, () => sdk(keys.good).models.generateContent({ model: 'no-such-model', contents: 'hi' }));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, message: expect.stringContaining('no-such-model') });
    });

    it('unknown key → ApiError 401', async () => {
      const error = await refusal(fixture, () => sdk(keys.unknown).models.generateContent({ model: models.gemini, contents: 'hi' }));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 401 });
    });

    it('negative maxOutputTokens → ApiError 400, not 500', async () => {
      const error = await refusal(fixture, () => sdk(keys.good).models.generateContent({ model: models.gemini, contents: 'hi', config: { maxOutputTokens: -1 } }));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400 });
    });

    it('exhausted token, streamed → ApiError 402', async () => {
      const error = await refusal(fixture, async () => {
        for await (const _chunk of await sdk(keys.exhausted).models.generateContentStream({ model: models.gemini, contents: 'hi' })) void _chunk;
      });
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 402 });
    });
  });
});
