/**
 * Nothing to embed. OpenAI refuses an empty string (`input: ""`, or `""` in a list: 400 "'$.input' is
 * invalid") and an empty token list (the schema's `minItems: 1`); the gateway reserved for it, sent it and,
 * when the channel answered (an OpenAI-compatible server, the fake), charged the embedding of nothing. Now a
 * 400 naming the input, before any reservation or call. Gemini's `embedContent` / `batchEmbedContents` with
 * an empty text part are relayed as sent: Gemini judges them, and the local count of nothing charges nothing.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, refusal, send, startBadInputFixture, withoutCharge, type BadInputFixture } from './bad-input-fixture.js';
import { m, startMoreRoutesFixture, type MoreRoutesFixture } from './more-routes-fixture.js';

let fixture: BadInputFixture;
let more: MoreRoutesFixture;
beforeAll(async () => {
  fixture = await startBadInputFixture();
  more = await startMoreRoutesFixture();
});
afterAll(async () => {
  await fixture?.close();
  await more?.close();
});

const refused: { input: unknown; param: string; says: string }[] = [
  { input: '', param: 'input', says: 'empty string' },
  { input: [''], param: 'input.0', says: 'empty string' },
  { input: ['a', ''], param: 'input.1', says: 'empty string' },
  { input: [[]], param: 'input.0', says: 'empty token array' },
  { input: [[1, 2], []], param: 'input.1', says: 'empty token array' },
  { input: [], param: 'input', says: 'at least 1' },
];

describe('/v1/embeddings with nothing to embed is a 400 naming the input, nothing reserved, sent or charged', () => {
  for (const row of refused) {
    it(`input ${JSON.stringify(row.input)}`, async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, '/v1/embeddings', { body: JSON.stringify({ model: models.embedding, input: row.input }) }));
      expect(sent.status, sent.text).toBe(400);
      expect(expectEnvelope(sent, 'openai')).toContain(row.says);
      expect(sent.body.error.param).toBe(row.param);
    });
  }

  it('the openai SDK sees a BadRequestError for input ""', async () => {
    const client = new OpenAI({ apiKey: keys.good, baseURL: `${fixture.url}/v1`, maxRetries: 0 });
    const caught = await refusal(fixture, () => client.embeddings.create({ model: models.embedding, input: '' }));
    expect(caught).toBeInstanceOf(OpenAI.BadRequestError);
  });
});

describe('what is still embedded', () => {
  for (const input of [' ', ['a', ' '], [0], [[1], [2]]]) {
    it(`input ${JSON.stringify(input)} is served`, async () => {
      const sent = await send(fixture, '/v1/embeddings', { body: JSON.stringify({ model: models.embedding, input }) });
      expect(sent.status, sent.text).toBe(200);
    });
  }

  it('Gemini embedContent / batchEmbedContents with an empty text part are relayed as sent and charge nothing', async () => {
    for (const [action, body] of [
      ['embedContent', { content: { parts: [{ text: '' }] } }],
      ['batchEmbedContents', { requests: [{ content: { parts: [{ text: '' }] } }] }],
    ] as const) {
      const sent = await withoutCharge(more, () => send(more, `/v1beta/models/${m.gemEmbed}:${action}`, { body: JSON.stringify(body) }), 1);
      expect(sent.status, sent.text).toBe(200);
    }
  });
});
