/**
 * A JSON body that is not UTF-8 (RFC 8259 §8.1: JSON text is UTF-8), as a tool writing Windows-1252 or
 * Latin-1 sends it (`café` as the one byte E9). It was decoded with U+FFFD in place of each bad byte and
 * served: the gateway checked, counted and converted the replaced text while a passthrough sent the client's
 * bytes as they came, so the upstream read (or refused, after the call) another body than the one billed.
 * Now it is a 400 `invalid_json` in the route's envelope, before anything is reserved or sent, on every
 * route that takes JSON. Text that is UTF-8 (multibyte characters, a literal U+FFFD) is served as before.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, refusal, send, startBadInputFixture, withoutCharge, type BadInputFixture, type Style } from './bad-input-fixture.js';
import { startTaskRoutesFixture, type TaskRoutesFixture } from './task-routes-fixture.js';

/** The JSON text with `{{text}}` replaced by `bytes`, as raw bytes: the rest of the body stays UTF-8. */
const withBytes = (json: string, bytes: number[]) => {
  const [head, tail] = json.split('{{text}}') as [string, string];
  return Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from(bytes), Buffer.from(tail, 'utf8')]);
};

/** `café` as Latin-1 / Windows-1252 writes it: E9 is a lead byte not followed by continuation bytes. */
const latin1Cafe = [0x63, 0x61, 0x66, 0xe9];

const notUtf8: Array<[string, number[]]> = [
  ['Latin-1 "café" (E9)', latin1Cafe],
  ['a lone continuation byte (80)', [0x61, 0x80, 0x62]],
  ['an overlong "/" (C0 AF)', [0xc0, 0xaf]],
  ['an encoded surrogate (ED A0 80, CESU-8)', [0xed, 0xa0, 0x80]],
  ['a sequence cut short (E2 82)', [0xe2, 0x82]],
  ['FF FE', [0xff, 0xfe]],
];

const anthropicHeaders = { 'anthropic-version': '2023-06-01' };
const chat = (model: string, stream = false) => JSON.stringify({ model, max_tokens: 5, stream, messages: [{ role: 'user', content: '{{text}}' }] });
const messages = (model: string) => JSON.stringify({ model, max_tokens: 5, messages: [{ role: 'user', content: '{{text}}' }] });
const gemini = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: '{{text}}' }] }] });

interface Row {
  name: string;
  path: string;
  json: string;
  style: Style;
  headers?: Record<string, string>;
}

function expectRefused(sent: Awaited<ReturnType<typeof send>>, style: Style): void {
  expect(sent.status, sent.text).toBe(400);
  const message = expectEnvelope(sent, style);
  expect(message).toContain('not UTF-8');
  if (style === 'openai') expect(sent.body.error.code).toBe('invalid_json');
}

describe('text routes', () => {
  let fixture: BadInputFixture;
  beforeAll(async () => {
    fixture = await startBadInputFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const rows: Row[] = [
    { name: 'chat (passthrough)', path: '/v1/chat/completions', json: chat(models.chat), style: 'openai' },
    { name: 'chat, streamed', path: '/v1/chat/completions', json: chat(models.chat, true), style: 'openai' },
    { name: 'chat to an Anthropic channel (converted)', path: '/v1/chat/completions', json: chat(models.claude), style: 'openai' },
    { name: 'responses to a Gemini channel', path: '/v1/responses', json: JSON.stringify({ model: models.gemini, max_output_tokens: 5, input: '{{text}}' }), style: 'openai' },
    { name: 'completions', path: '/v1/completions', json: JSON.stringify({ model: models.instruct, max_tokens: 5, prompt: '{{text}}' }), style: 'openai' },
    { name: 'embeddings', path: '/v1/embeddings', json: JSON.stringify({ model: models.embedding, input: '{{text}}' }), style: 'openai' },
    { name: 'messages (passthrough)', path: '/v1/messages', json: messages(models.claude), style: 'anthropic', headers: anthropicHeaders },
    { name: 'messages to an OpenAI channel (converted)', path: '/v1/messages', json: messages(models.chat), style: 'anthropic', headers: anthropicHeaders },
    { name: 'gemini generateContent', path: `/v1beta/models/${models.gemini}:generateContent`, json: gemini, style: 'gemini' },
    { name: 'gemini streamGenerateContent', path: `/v1beta/models/${models.gemini}:streamGenerateContent?alt=sse`, json: gemini, style: 'gemini' },
    { name: 'gemini countTokens', path: `/v1beta/models/${models.gemini}:countTokens`, json: gemini, style: 'gemini' },
    { name: 'console login', path: '/api/user/login', json: JSON.stringify({ username: 'alice', password: '{{text}}' }), style: 'api' },
  ];

  for (const row of rows) {
    it(`${row.name}: Latin-1 text is a 400 in the route's envelope, no upstream call, no charge`, async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, row.path, { body: withBytes(row.json, latin1Cafe), ...(row.headers ? { headers: row.headers } : {}) }));
      expectRefused(sent, row.style);
    });
  }

  for (const [name, bytes] of notUtf8) {
    it(`chat: ${name} is a 400 invalid_json, no upstream call, no charge`, async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, '/v1/chat/completions', { body: withBytes(chat(models.chat), bytes) }));
      expectRefused(sent, 'openai');
    });
  }

  it('the admin API: a channel written in Latin-1 is refused and not stored', async () => {
    const { db } = fixture.gateway.gateway.services.database;
    const body = withBytes(JSON.stringify({ name: 'latin1-{{text}}', type: 'openai', base_url: 'https://api.example.com', key: 'sk-x', models: ['m'] }), latin1Cafe);
    const sent = await send(fixture, '/api/admin/channels', { body, auth: fixture.gateway.adminKey });
    expectRefused(sent, 'api');
    expect(await db.selectFrom('channels').select('name').where('name', 'like', 'latin1-%').execute()).toEqual([]);
  });

  it('UTF-8 text — multibyte characters and a literal U+FFFD — is served and reaches the upstream as sent', async () => {
    const text = 'café 你好 😀 \ufffd';
    const before = fixture.openai.requests.length;
    const sent = await send(fixture, '/v1/chat/completions', { body: Buffer.from(chat(models.chat).replace('{{text}}', text), 'utf8') });
    expect(sent.status, sent.text).toBe(200);
    expect(fixture.openai.requests.slice(before).map((request) => request.body.messages[0].content)).toEqual([text]);
  });

  /** A fetch that writes the SDK's JSON as Latin-1, as a client whose encoding is not UTF-8 does. */
  const fetchAsLatin1: typeof fetch = (input, init) => fetch(input, { ...init, body: typeof init?.body === 'string' ? Buffer.from(init.body, 'latin1') : init?.body });

  it('openai SDK: a body written as Latin-1 is a BadRequestError invalid_json', async () => {
    const client = new OpenAI({ apiKey: keys.good, baseURL: `${fixture.url}/v1`, maxRetries: 0, fetch: fetchAsLatin1 });
    const caught = await refusal(fixture, () => client.chat.completions.create({ model: models.chat, max_tokens: 5, messages: [{ role: 'user', content: 'café' }] }));
    expect(caught).toBeInstanceOf(OpenAI.BadRequestError);
    expect((caught as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_json');
  });

  it('Anthropic SDK: a body written as Latin-1 is a BadRequestError, streamed or not', async () => {
    const client = new Anthropic({ apiKey: keys.good, baseURL: fixture.url, maxRetries: 0, fetch: fetchAsLatin1 });
    const whole = await refusal(fixture, () => client.messages.create({ model: models.claude, max_tokens: 5, messages: [{ role: 'user', content: 'café' }] }));
    expect(whole).toBeInstanceOf(Anthropic.BadRequestError);
    const streamed = await refusal(fixture, () => client.messages.stream({ model: models.claude, max_tokens: 5, messages: [{ role: 'user', content: 'café' }] }).finalMessage());
    expect(streamed).toBeInstanceOf(Anthropic.BadRequestError);
  });
});

describe('task and image routes', () => {
  let fixture: TaskRoutesFixture;
  beforeAll(async () => {
    fixture = await startTaskRoutesFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const rows: Row[] = [
    { name: 'images generations', path: '/v1/images/generations', json: JSON.stringify({ model: 'dall-e-3', prompt: '{{text}}', n: 1 }), style: 'openai' },
    { name: 'videos (Sora)', path: '/v1/videos', json: JSON.stringify({ model: 'sora-2', prompt: '{{text}}', seconds: '4' }), style: 'openai' },
    { name: 'videos (Kling)', path: '/v1/videos', json: JSON.stringify({ model: 'kling-v2-6', prompt: '{{text}}', seconds: '5' }), style: 'openai' },
    { name: 'Kling text2video', path: '/kling/v1/videos/text2video', json: JSON.stringify({ model_name: 'kling-v2-6', prompt: '{{text}}', duration: '5' }), style: 'task' },
    { name: 'Suno music', path: '/suno/submit/music', json: JSON.stringify({ prompt: '{{text}}', tags: 'lofi', mv: 'chirp-v4' }), style: 'task' },
    { name: 'Midjourney imagine', path: '/mj/submit/imagine', json: JSON.stringify({ prompt: '{{text}}' }), style: 'mj' },
  ];

  for (const row of rows) {
    it(`${row.name}: Latin-1 text is a 400 in the route's envelope, no upstream call, no task, no charge`, async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, row.path, { body: withBytes(row.json, latin1Cafe) }));
      expectRefused(sent, row.style);
    });
  }
});
