/**
 * A user turn with nothing to send to a channel of another style: empty (`content: []`, `parts: []`), or
 * every part of it of a kind the conversion drops (an Anthropic block it does not carry, a Gemini part with
 * none of the fields another vendor takes). It vanished from the converted request: an OpenAI channel was
 * asked a request the client did not make (a conversation ending on the assistant's turn, or no user text
 * at all) and the client charged for the answer; a Gemini channel was called and refused "contents is not
 * specified". Now it is a 400 in the client's envelope naming the turn and what was dropped, with no
 * upstream call and nothing charged. A same-style channel is still passed the body as sent.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, refusal, send, startBadInputFixture, withoutCharge, type BadInputFixture, type Style } from './bad-input-fixture.js';

let fixture: BadInputFixture;
beforeAll(async () => {
  fixture = await startBadInputFixture();
});
afterAll(async () => {
  await fixture?.close();
});

const anthropicHeaders = { 'anthropic-version': '2023-06-01' };
const unknownBlock = { type: 'no_such_block', text: 'hi' };
const messages = (model: string, turns: unknown[]) => ({ model, max_tokens: 5, messages: turns });
const gemini = (model: string, contents: unknown[]) => ({ path: `/v1beta/models/${model}:generateContent`, body: { contents } });

interface Row {
  name: string;
  path: string;
  body: unknown;
  style: Style;
  /** Text the refusal's message must hold (what was dropped). */
  says?: string;
  /** The client's path the refusal must open with (`contents.N` for Gemini; the client's index, not the canonical one). */
  names?: string;
}

const rows: Row[] = [
  { name: 'Messages → OpenAI: a user turn of one unknown block', path: '/v1/messages', body: messages(models.chat, [{ role: 'user', content: [unknownBlock] }]), style: 'anthropic', says: "'no_such_block' block" },
  { name: 'Messages → Gemini: a user turn of one unknown block', path: '/v1/messages', body: messages(models.gemini, [{ role: 'user', content: [unknownBlock] }]), style: 'anthropic', says: "'no_such_block' block" },
  {
    name: 'Messages → OpenAI: the last user turn emptied (the request would end on the assistant turn)',
    path: '/v1/messages',
    body: messages(models.chat, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user', content: [unknownBlock] }]),
    style: 'anthropic',
    says: 'messages.2',
  },
  { name: 'Messages → OpenAI: content []', path: '/v1/messages', body: messages(models.chat, [{ role: 'user', content: [] }]), style: 'anthropic' },
  { name: 'Gemini → OpenAI: a part with no field another vendor takes', ...gemini(models.chat, [{ role: 'user', parts: [{ noSuchField: 1 }] }]), style: 'gemini', says: 'a part with no text', names: 'contents.0' },
  { name: 'Gemini → Anthropic: a part with no field another vendor takes', ...gemini(models.claude, [{ role: 'user', parts: [{ noSuchField: 1 }] }]), style: 'gemini', says: 'a part with no text', names: 'contents.0' },
  { name: 'Gemini → OpenAI: parts []', ...gemini(models.chat, [{ role: 'user', parts: [] }]), style: 'gemini', names: 'contents.0' },
  {
    name: 'Gemini → Anthropic: the last user turn emptied',
    ...gemini(models.claude, [{ role: 'user', parts: [{ text: 'hi' }] }, { role: 'model', parts: [{ text: 'hello' }] }, { role: 'user', parts: [{ noSuchField: 1 }] }]),
    style: 'gemini',
    names: 'contents.2',
  },
  {
    // The function response and the text beside it become two canonical turns: the client's index is named, not the canonical one.
    name: 'Gemini → OpenAI: an emptied turn after a split function-response turn is named by its contents index',
    ...gemini(models.chat, [
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ functionCall: { name: 'look', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'look', response: { ok: true } } }, { text: 'and then?' }] },
      { role: 'model', parts: [{ text: 'done' }] },
      { role: 'user', parts: [{ noSuchField: 1 }] },
    ]),
    style: 'gemini',
    names: 'contents.4',
  },
  {
    name: 'Messages → Gemini: an emptied turn after a split tool-result turn is named by its messages index',
    path: '/v1/messages',
    body: messages(models.gemini, [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'look', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }, { type: 'text', text: 'and then?' }] },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: [unknownBlock] },
    ]),
    style: 'anthropic',
    names: 'messages.4',
  },
  { name: 'Chat → Anthropic: content []', path: '/v1/chat/completions', body: { model: models.claude, max_tokens: 5, messages: [{ role: 'user', content: [] }] }, style: 'openai' },
  {
    name: 'Chat → Gemini: content [] after a system message is named by its messages index',
    path: '/v1/chat/completions',
    body: { model: models.gemini, max_tokens: 5, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: [] }] },
    style: 'openai',
    names: 'messages.1',
  },
  { name: 'Chat → Gemini: content []', path: '/v1/chat/completions', body: { model: models.gemini, max_tokens: 5, messages: [{ role: 'user', content: [] }] }, style: 'openai' },
];

describe('a user turn left with nothing for a converted channel is a 400 naming it, no upstream call, no charge', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, row.path, { body: JSON.stringify(row.body), headers: row.style === 'anthropic' ? anthropicHeaders : {} }));
      expect(sent.status, sent.text).toBe(400);
      const message = expectEnvelope(sent, row.style);
      expect(message).toContain('nothing in this user message can be sent to this model');
      if (row.says !== undefined) expect(message).toContain(row.says);
      if (row.names !== undefined) expect(message.startsWith(`${row.names}: `), message).toBe(true);
      if (row.style === 'gemini') {
        expect(row.names, 'every Gemini row names its contents path').toBeDefined();
        expect(message).not.toContain('messages.');
      }
      if (row.style === 'openai') expect(sent.body.error.param).toMatch(/^messages\.\d+$/);
      if (row.style === 'openai' && row.names !== undefined) expect(sent.body.error.param).toBe(row.names);
    });
  }
});

describe('what still goes through', () => {
  it('a same-style channel is passed the unknown block as sent (Anthropic judges it)', async () => {
    const before = fixture.anthropic.requests.length;
    const sent = await send(fixture, '/v1/messages', { body: JSON.stringify(messages(models.claude, [{ role: 'user', content: [unknownBlock] }])), headers: anthropicHeaders });
    expect(sent.status, sent.text).toBe(200);
    expect(fixture.anthropic.requests.slice(before).map((request) => request.body.messages[0].content[0].type)).toEqual(['no_such_block']);
  });

  it('a user turn with text beside the dropped block is converted with its text', async () => {
    const before = fixture.openai.requests.length;
    const sent = await send(fixture, '/v1/messages', { body: JSON.stringify(messages(models.chat, [{ role: 'user', content: [unknownBlock, { type: 'text', text: 'kept' }] }])), headers: anthropicHeaders });
    expect(sent.status, sent.text).toBe(200);
    expect(JSON.stringify(fixture.openai.requests.slice(before).map((request) => request.body.messages))).toContain('kept');
  });

  it('a Gemini part with text and an unknown field beside it is converted with its text', async () => {
    const before = fixture.openai.requests.length;
    const { path, body } = gemini(models.chat, [{ role: 'user', parts: [{ text: 'kept', noSuchField: 1 }] }]);
    const sent = await send(fixture, path, { body: JSON.stringify(body) });
    expect(sent.status, sent.text).toBe(200);
    expect(JSON.stringify(fixture.openai.requests.slice(before).map((request) => request.body.messages))).toContain('kept');
  });
});

describe('the SDKs', () => {
  it('Anthropic: a user turn of one search_result block to an OpenAI channel is a BadRequestError', async () => {
    const client = new Anthropic({ apiKey: keys.good, baseURL: fixture.url, maxRetries: 0 });
    const searchResult = { type: 'search_result' as const, source: 'https://example.com', title: 't', content: [{ type: 'text' as const, text: 'found' }] };
    const caught = await refusal(fixture, () => client.messages.create({ model: models.chat, max_tokens: 5, messages: [{ role: 'user', content: [searchResult] }] }));
    expect(caught).toBeInstanceOf(Anthropic.BadRequestError);
    expect((caught as Error).message).toContain("'search_result' block");
  });

  it('@google/genai: a user turn with no parts to an Anthropic channel is ApiError 400', async () => {
    const client = new GoogleGenAI({ apiKey: keys.good, httpOptions: { baseUrl: fixture.url } });
    const caught = await refusal(fixture, () => client.models.generateContent({ model: models.claude, contents: [{ role: 'user', parts: [] }] }));
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).status).toBe(400);
    expect((caught as ApiError).message).toContain('contents.0: nothing in this user message');
  });

  it('@google/genai: an emptied last turn to an OpenAI channel names the Gemini path (contents.N), not messages.N', async () => {
    const client = new GoogleGenAI({ apiKey: keys.good, httpOptions: { baseUrl: fixture.url } });
    const contents = [
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ functionCall: { name: 'look', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'look', response: { ok: true } } }, { text: 'and then?' }] },
      { role: 'model', parts: [{ text: 'done' }] },
      { role: 'user', parts: [] },
    ];
    const caught = await refusal(fixture, () => client.models.generateContent({ model: models.chat, contents }));
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).status).toBe(400);
    expect((caught as ApiError).message).toContain('contents.4: nothing in this user message');
    expect((caught as ApiError).message).not.toContain('messages.');
  });
});
