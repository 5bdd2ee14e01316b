/**
 * Gemini's `?key=` given more than once (`?key=a&key=b`). The query parser reads it as an array, which the
 * authentication took for no key at all: the client was told 401 "No API key provided", and `/v1/models`
 * answered in the OpenAI envelope. Now: 401 in the Gemini envelope saying the key is given more than once,
 * before the body is read, whether the two values are equal, differ or are empty. As with two key headers,
 * `x-goog-api-key` outranks the query (served by the header's key), and the query outranks
 * `Authorization: Bearer` (refused). No SDK repeats the parameter (`@google/genai` sends `x-goog-api-key`),
 * so the refusals are sent raw; the SDK shows the normal path beside them.
 */
import { ApiError, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, refusal, send, startBadInputFixture, withoutCharge, type BadInputFixture } from './bad-input-fixture.js';

let fixture: BadInputFixture;
beforeAll(async () => {
  fixture = await startBadInputFixture();
});
afterAll(async () => {
  await fixture?.close();
});

const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
const generate = `/v1beta/models/${models.gemini}:generateContent`;

const refused: { name: string; path: string; method?: string; auth?: string }[] = [
  { name: 'generateContent, the same key twice', path: `${generate}?key=${keys.good}&key=${keys.good}` },
  { name: 'generateContent, two keys', path: `${generate}?key=${keys.good}&key=${keys.unknown}` },
  { name: 'generateContent, a key and an empty one', path: `${generate}?key=&key=${keys.good}` },
  { name: 'streamGenerateContent (SSE), alt between the two', path: `/v1beta/models/${models.gemini}:streamGenerateContent?key=${keys.good}&alt=sse&key=${keys.good}` },
  { name: 'countTokens', path: `/v1beta/models/${models.gemini}:countTokens?key=${keys.good}&key=${keys.good}` },
  { name: 'generateContent on /v1/models', path: `/v1/models/${models.gemini}:generateContent?key=${keys.good}&key=${keys.good}` },
  { name: 'the model list', path: `/v1beta/models?key=${keys.good}&key=${keys.good}`, method: 'GET' },
  { name: 'the model list on /v1/models (styled by the query)', path: `/v1/models?key=${keys.good}&key=${keys.good}`, method: 'GET' },
  { name: 'beside a good Bearer key, which the query outranks', path: `${generate}?key=${keys.good}&key=${keys.good}`, auth: keys.good },
];

describe('a `key` query parameter given more than once → 401 in the Gemini envelope saying so, no upstream call, no charge', () => {
  for (const row of refused) {
    it(row.name, async () => {
      const sent = await withoutCharge(fixture, () =>
        send(fixture, row.path, { method: row.method ?? 'POST', auth: row.auth ?? null, ...(row.method === 'GET' ? {} : { body }) }),
      );
      expect(sent.status, sent.text).toBe(401);
      const message = expectEnvelope(sent, 'gemini');
      expect(message).toContain('`key` query parameter is given more than once');
      expect(sent.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    });
  }
});

describe('served', () => {
  it('one `key` query parameter', async () => {
    const calls = fixture.upstreamCalls();
    const sent = await send(fixture, `${generate}?key=${keys.good}`, { auth: null, body });
    expect(sent.status, sent.text).toBe(200);
    expect(fixture.upstreamCalls() - calls).toBe(1);
  });

  it('x-goog-api-key beside a repeated `key`: the header wins, as it wins over the query', async () => {
    const calls = fixture.upstreamCalls();
    const sent = await send(fixture, `${generate}?key=${keys.unknown}&key=${keys.unknown}`, { auth: null, body, headers: { 'x-goog-api-key': keys.good } });
    expect(sent.status, sent.text).toBe(200);
    expect(fixture.upstreamCalls() - calls).toBe(1);
  });

  it('@google/genai: its key (sent as x-goog-api-key) is served; an unknown one is ApiError 401', async () => {
    const served = await new GoogleGenAI({ apiKey: keys.good, httpOptions: { baseUrl: fixture.url } }).models.generateContent({ model: models.gemini, contents: 'hi' });
    expect(served.text).toBeTypeOf('string');
    const error = await refusal(fixture, () => new GoogleGenAI({ apiKey: keys.unknown, httpOptions: { baseUrl: fixture.url } }).models.generateContent({ model: models.gemini, contents: 'hi' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401 });
  });
});
