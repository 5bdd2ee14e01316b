/**
 * A key header sent more than once. Node joins a repeated `x-api-key` / `x-goog-api-key` into one value
 * (`a, b`), which authentication took for one unknown key: a generic 401 "invalid API key", though the
 * client may well have sent its good key twice. A repeated `Authorization` was worse: Node keeps the first
 * and drops the others unseen, so the request was charged to whichever key came first. Now each is refused as
 * `?key=` given twice is (commit 4a917bf): 401 in the route's envelope saying which header is given more
 * than once, before the body is read, no upstream call, nothing charged. The order of the key sources holds:
 * a repeated header the route does not read (Authorization beside `x-api-key`) changes nothing. Node's own
 * client sends a header given as an array as separate lines, as a proxy adding its own would.
 */
import { request as httpRequest } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, refusal, startBadInputFixture, withoutCharge, type BadInputFixture, type Sent, type Style } from './bad-input-fixture.js';

let fixture: BadInputFixture;
beforeAll(async () => {
  fixture = await startBadInputFixture();
});
afterAll(async () => {
  await fixture?.close();
});

/** One request with each header line written as given (an array value: one line per element). */
function sendLines(path: string, headers: Record<string, string | string[]>, method = 'POST', body?: string): Promise<Sent> {
  const url = new URL(path, fixture.url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') answerHeaders.set(name, value);
        resolve({ status: response.statusCode ?? 0, body: json, text, headers: answerHeaders });
      });
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const chatBody = JSON.stringify({ model: models.chat, messages: [{ role: 'user', content: 'hi' }] });
const messagesBody = JSON.stringify({ model: models.claude, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
const geminiBody = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
const generate = `/v1beta/models/${models.gemini}:generateContent`;
const bearer = (key: string) => `Bearer ${key}`;

const refused: { name: string; path: string; method?: string; body?: string; headers: Record<string, string | string[]>; style: Style; header: string }[] = [
  { name: 'Messages, x-api-key twice (the same key)', path: '/v1/messages', body: messagesBody, headers: { 'x-api-key': [keys.good, keys.good], 'anthropic-version': '2023-06-01' }, style: 'anthropic', header: 'x-api-key' },
  { name: 'Messages, x-api-key twice (two keys)', path: '/v1/messages', body: messagesBody, headers: { 'x-api-key': [keys.good, keys.unknown], 'anthropic-version': '2023-06-01' }, style: 'anthropic', header: 'x-api-key' },
  { name: 'Messages, x-api-key as one line listing two keys', path: '/v1/messages', body: messagesBody, headers: { 'x-api-key': `${keys.good}, ${keys.good}`, 'anthropic-version': '2023-06-01' }, style: 'anthropic', header: 'x-api-key' },
  { name: 'Messages, x-api-key twice beside a good Bearer key, which it outranks', path: '/v1/messages', body: messagesBody, headers: { 'x-api-key': [keys.good, keys.good], authorization: bearer(keys.good) }, style: 'anthropic', header: 'x-api-key' },
  { name: 'generateContent, x-goog-api-key twice', path: generate, body: geminiBody, headers: { 'x-goog-api-key': [keys.good, keys.good] }, style: 'gemini', header: 'x-goog-api-key' },
  { name: 'generateContent, x-goog-api-key twice beside a good ?key=, which it outranks', path: `${generate}?key=${keys.good}`, body: geminiBody, headers: { 'x-goog-api-key': [keys.good, keys.unknown] }, style: 'gemini', header: 'x-goog-api-key' },
  { name: 'streamGenerateContent, x-goog-api-key twice', path: `/v1beta/models/${models.gemini}:streamGenerateContent?alt=sse`, body: geminiBody, headers: { 'x-goog-api-key': [keys.good, keys.good] }, style: 'gemini', header: 'x-goog-api-key' },
  { name: 'the Gemini model list, x-goog-api-key twice', path: '/v1beta/models', method: 'GET', headers: { 'x-goog-api-key': [keys.good, keys.good] }, style: 'gemini', header: 'x-goog-api-key' },
  { name: '/v1/models styled by x-api-key, given twice', path: '/v1/models', method: 'GET', headers: { 'x-api-key': [keys.good, keys.good] }, style: 'anthropic', header: 'x-api-key' },
  { name: 'Chat, Authorization twice (the same key)', path: '/v1/chat/completions', body: chatBody, headers: { authorization: [bearer(keys.good), bearer(keys.good)] }, style: 'openai', header: 'Authorization' },
  { name: 'Chat, Authorization twice (an unknown key first)', path: '/v1/chat/completions', body: chatBody, headers: { authorization: [bearer(keys.unknown), bearer(keys.good)] }, style: 'openai', header: 'Authorization' },
  { name: 'Chat, Authorization twice (the good key first)', path: '/v1/chat/completions', body: chatBody, headers: { authorization: [bearer(keys.good), bearer(keys.unknown)] }, style: 'openai', header: 'Authorization' },
  { name: 'generateContent, Authorization twice and no Google key', path: generate, body: geminiBody, headers: { authorization: [bearer(keys.good), bearer(keys.good)] }, style: 'gemini', header: 'Authorization' },
];

describe('a key header given more than once → 401 in the route\'s envelope saying so, no upstream call, no charge', () => {
  for (const row of refused) {
    it(row.name, async () => {
      const sent = await withoutCharge(fixture, () => sendLines(row.path, row.headers, row.method ?? 'POST', row.body));
      expect(sent.status, sent.text).toBe(401);
      const message = expectEnvelope(sent, row.style);
      expect(message).toContain(`\`${row.header}\` header is given more than once`);
      expect(sent.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    });
  }
});

describe('served', () => {
  it('Authorization twice beside one x-api-key on Messages: the route reads x-api-key, which wins', async () => {
    const calls = fixture.upstreamCalls();
    const sent = await sendLines('/v1/messages', { 'x-api-key': keys.good, 'anthropic-version': '2023-06-01', authorization: [bearer(keys.unknown), bearer(keys.unknown)] }, 'POST', messagesBody);
    expect(sent.status, sent.text).toBe(200);
    expect(fixture.upstreamCalls() - calls).toBe(1);
  });

  it('x-goog-api-key once, Authorization once: served', async () => {
    const sent = await sendLines(generate, { 'x-goog-api-key': keys.good, authorization: bearer(keys.unknown) }, 'POST', geminiBody);
    expect(sent.status, sent.text).toBe(200);
  });

  it('the SDKs, which send their key once, are served; one given twice by a fetch is the typed 401 saying so', async () => {
    const twice = (name: string): typeof fetch => (input, init) => {
      const headers = new Headers(init?.headers);
      const value = headers.get(name) ?? '';
      headers.set(name, `${value}, ${value}`);
      return fetch(input, { ...init, headers });
    };
    expect((await new Anthropic({ apiKey: keys.good, baseURL: fixture.url, maxRetries: 0 }).messages.create({ model: models.claude, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).content).toBeDefined();
    const anthropic = await refusal(fixture, () => new Anthropic({ apiKey: keys.good, baseURL: fixture.url, maxRetries: 0, fetch: twice('x-api-key') }).messages.create({ model: models.claude, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }));
    expect(anthropic).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((anthropic as InstanceType<typeof Anthropic.AuthenticationError>).message).toContain('`x-api-key` header is given more than once');
    const gemini = await refusal(fixture, () => new GoogleGenAI({ apiKey: keys.good, httpOptions: { baseUrl: fixture.url } }).models.generateContent({ model: models.gemini, contents: 'hi', config: { httpOptions: { headers: { 'x-goog-api-key': `${keys.good}, ${keys.good}` } } } }));
    expect(gemini).toBeInstanceOf(ApiError);
    expect(gemini).toMatchObject({ status: 401 });
    expect((gemini as ApiError).message).toContain('`x-goog-api-key` header is given more than once');
    const openai = await new OpenAI({ apiKey: keys.good, baseURL: `${fixture.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: models.chat, messages: [{ role: 'user', content: 'hi' }] });
    expect(openai.choices).toHaveLength(1);
  });
});

/**
 * The routes that read Authorization themselves, not through authenticate-caller.ts: `/api/usage/token`
 * (new-api's TokenAuthReadOnly), the admin API's admin key, and the Realtime upgrade. Each kept the first of
 * two Authorization lines (Node drops the others unseen) and answered for that key. Now the same 401 saying
 * the header is given more than once; the same request with one line gets past authentication.
 */
describe('Authorization twice on the routes that read it themselves → the same 401', () => {
  const upgrade = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' };
  const routes: { name: string; path: string; key: () => string; style: Style; extra?: Record<string, string> }[] = [
    { name: '/api/usage/token', path: '/api/usage/token/', key: () => keys.good, style: 'api' },
    { name: 'the admin API (admin key)', path: '/api/admin/channels', key: () => fixture.gateway.adminKey, style: 'api' },
    { name: 'the Realtime upgrade', path: `/v1/realtime?model=${models.chat}`, key: () => keys.good, style: 'openai', extra: upgrade },
  ];

  for (const route of routes) {
    it(`${route.name}: two lines (the same key, or an unknown one after it) are a 401 saying so; one line gets past authentication`, async () => {
      for (const lines of [[route.key(), route.key()], [route.key(), keys.unknown]]) {
        const sent = await withoutCharge(fixture, () => sendLines(route.path, { ...route.extra, authorization: lines.map(bearer) }, 'GET'));
        expect(sent.status, sent.text).toBe(401);
        expect(expectEnvelope(sent, route.style)).toContain('`Authorization` header is given more than once');
      }
      const once = await sendLines(route.path, { ...route.extra, authorization: bearer(route.key()) }, 'GET');
      expect(once.status, once.text).not.toBe(401);
    });
  }

  // A browser client's key rides in a subprotocol: two of them (the good key and another) are as ambiguous.
  it('the Realtime upgrade: two key subprotocols are a 401 saying so; one gets past authentication', async () => {
    const protocols = (...keys: string[]) => ['realtime', ...keys.map((key) => `openai-insecure-api-key.${key}`)].join(', ');
    const twice = await withoutCharge(fixture, () => sendLines(`/v1/realtime?model=${models.chat}`, { ...upgrade, 'sec-websocket-protocol': protocols(keys.good, keys.unknown) }, 'GET'));
    expect(twice.status, twice.text).toBe(401);
    expect(expectEnvelope(twice, 'openai')).toContain('more than one `openai-insecure-api-key` subprotocol');
    const once = await sendLines(`/v1/realtime?model=${models.chat}`, { ...upgrade, 'sec-websocket-protocol': protocols(keys.good) }, 'GET');
    expect(once.status, once.text).not.toBe(401);
  });

  // From the realtime gaps review: `Authorization: Bearer A` beside a subprotocol key B was served as A, silently.
  it.each([
    ['the good key in Authorization, another in the subprotocol', keys.good, keys.unknown],
    ['another key in Authorization, the good one in the subprotocol', keys.unknown, keys.good],
  ])('the Realtime upgrade: %s is a 401 saying the two keys differ', async (_name, headerKey, protocolKey) => {
    const refused = await withoutCharge(fixture, () => sendLines(`/v1/realtime?model=${models.chat}`, { ...upgrade, authorization: bearer(headerKey), 'sec-websocket-protocol': `realtime, openai-insecure-api-key.${protocolKey}` }, 'GET'));
    expect(refused.status, refused.text).toBe(401);
    expect(expectEnvelope(refused, 'openai')).toContain('differs from the one in the `openai-insecure-api-key` subprotocol');
  });

  it('the Realtime upgrade: the same key in Authorization and in the subprotocol gets past authentication', async () => {
    const same = await sendLines(`/v1/realtime?model=${models.chat}`, { ...upgrade, authorization: bearer(keys.good), 'sec-websocket-protocol': `realtime, openai-insecure-api-key.${keys.good}` }, 'GET');
    expect(same.status, same.text).not.toBe(401);
  });
});
