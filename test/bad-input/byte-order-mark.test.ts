/**
 * A JSON body that starts with a UTF-8 byte order mark (EF BB BF), as Windows tools write it (PowerShell 5's
 * `Set-Content -Encoding UTF8`, .NET's `Encoding.UTF8`). RFC 8259 §8.1 lets a parser ignore it; JSON.parse
 * does not, so it was answered 400 `invalid_json`. Now it is served, and the bytes passed through reach the
 * upstream without it: the fakes refuse it as the vendors do (a passthrough that kept it would be a 400 from
 * the upstream). Only one leading mark is dropped: two, or one after whitespace, is still malformed.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-server.js';
import { expectEnvelope, keys, models, send, startBadInputFixture, withoutCharge, type BadInputFixture, type Style } from './bad-input-fixture.js';

let fixture: BadInputFixture;
beforeAll(async () => {
  fixture = await startBadInputFixture();
});
afterAll(async () => {
  await fixture?.close();
});

const byteOrderMark = Buffer.from([0xef, 0xbb, 0xbf]);
const withMark = (json: string) => Buffer.concat([byteOrderMark, Buffer.from(json, 'utf8')]);
const messages = [{ role: 'user', content: 'hi' }];
const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];

interface Row {
  name: string;
  path: string;
  body: unknown;
  headers?: Record<string, string>;
  /** The upstream that must receive the body. */
  upstream: () => RecordedRequest[];
}

const rows: Row[] = [
  { name: 'chat', path: '/v1/chat/completions', body: { model: models.chat, messages, max_tokens: 5 }, upstream: () => fixture.openai.requests },
  { name: 'chat, streamed', path: '/v1/chat/completions', body: { model: models.chat, messages, max_tokens: 5, stream: true }, upstream: () => fixture.openai.requests },
  { name: 'embeddings', path: '/v1/embeddings', body: { model: models.embedding, input: 'hi' }, upstream: () => fixture.openai.requests },
  { name: 'messages', path: '/v1/messages', headers: { 'anthropic-version': '2023-06-01' }, body: { model: models.claude, max_tokens: 5, messages }, upstream: () => fixture.anthropic.requests },
  { name: 'gemini generateContent', path: `/v1beta/models/${models.gemini}:generateContent`, body: { contents }, upstream: () => fixture.gemini.requests },
  { name: 'gemini streamGenerateContent', path: `/v1beta/models/${models.gemini}:streamGenerateContent?alt=sse`, body: { contents }, upstream: () => fixture.gemini.requests },
];

describe('a JSON body after a UTF-8 byte order mark is served, and passed through without the mark', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const json = JSON.stringify(row.body);
      const before = row.upstream().length;
      const sent = await send(fixture, row.path, { body: withMark(json), ...(row.headers ? { headers: row.headers } : {}) });
      expect(sent.status, sent.text).toBe(200);
      const received = row.upstream().slice(before);
      expect(received).toHaveLength(1);
      // The fake records the parsed JSON when the bytes parse, else the raw text (which would start with U+FEFF).
      expect(received[0]!.body).toBeTypeOf('object');
      expect(received[0]!.body).toMatchObject(row.body as object);
    });
  }
});

describe('only one leading mark is dropped', () => {
  const malformed: { name: string; body: Buffer; style: Style; path: string }[] = [
    { name: 'two marks', body: Buffer.concat([byteOrderMark, withMark(JSON.stringify({ model: models.chat, messages }))]), style: 'openai', path: '/v1/chat/completions' },
    { name: 'a mark after a space', body: Buffer.concat([Buffer.from(' '), withMark(JSON.stringify({ model: models.chat, messages }))]), style: 'openai', path: '/v1/chat/completions' },
    { name: 'a mark alone (Gemini)', body: byteOrderMark, style: 'gemini', path: `/v1beta/models/${models.gemini}:generateContent` },
  ];
  for (const row of malformed) {
    it(`${row.name}: 400 in the route's envelope, no upstream call, no charge`, async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, row.path, { body: row.body }));
      expect(sent.status, sent.text).toBe(400);
      expectEnvelope(sent, row.style);
    });
  }
});

/** A fetch that puts a byte order mark before the SDK's JSON body, as a Windows tool writing UTF-8 "with BOM" does. */
const fetchWithMark: typeof fetch = (input, init) => fetch(input, { ...init, body: typeof init?.body === 'string' ? withMark(init.body) : init?.body });

describe('the SDKs, their body sent after a byte order mark', () => {
  it('openai: the chat is served, and the upstream reads the SDK\'s body', async () => {
    const client = new OpenAI({ apiKey: keys.good, baseURL: `${fixture.url}/v1`, maxRetries: 0, fetch: fetchWithMark });
    const before = fixture.openai.requests.length;
    const served = await client.chat.completions.create({ model: models.chat, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
    expect(served.choices[0]?.message.content).toBeTypeOf('string');
    expect(fixture.openai.requests.slice(before).map((request) => request.body.max_tokens)).toEqual([5]);
  });

  it('anthropic: the message is served, streamed', async () => {
    const client = new Anthropic({ apiKey: keys.good, baseURL: fixture.url, maxRetries: 0, fetch: fetchWithMark });
    const before = fixture.anthropic.requests.length;
    const stream = client.messages.stream({ model: models.claude, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    const message = await stream.finalMessage();
    expect(message.type).toBe('message');
    expect(fixture.anthropic.requests.slice(before).map((request) => request.body.model)).toEqual([models.claude]);
  });
});
