/**
 * A JSON body that names one key twice in one object (`{"model":"a","model":"b"}`), or a Gemini field under
 * both of its proto-JSON spellings (`generationConfig` and `generation_config`). JSON.parse keeps the last
 * value, and the gateway routed, checked model_limits, reserved and priced by it, while the passthrough
 * forwarded the client's bytes with both values: an upstream that keeps the first ran another model or a
 * larger output limit than the one reserved (the bad-input audit, session 30). Bar: 400 in the route's
 * envelope naming the key, no upstream call, nothing charged; the same bodies without the repeat are served.
 *
 * No SDK emits a repeated key from an object, so the refusals are sent raw; the openai and Anthropic SDKs
 * are given a fetch that repeats a key, to show they see the refusal as their typed 400. @google/genai does
 * send both Gemini spellings on its own when `httpOptions.extraBody` names the snake_case one.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, models, refusal, send, startBadInputFixture, withoutCharge, type BadInputFixture, type Style } from './bad-input-fixture.js';

let fixture: BadInputFixture;
beforeAll(async () => {
  fixture = await startBadInputFixture();
});
afterAll(async () => {
  await fixture?.close();
});

const messages = '[{"role":"user","content":"hi"}]';
const contents = '[{"role":"user","parts":[{"text":"hi"}]}]';
const anthropicHeaders = { 'anthropic-version': '2023-06-01' };
const geminiPath = (action: string) => `/v1beta/models/${models.gemini}:${action}`;

interface Row {
  name: string;
  path: string;
  style: Style;
  body: string;
  /** The key (or the two spellings) the message must name. */
  names: string[];
  headers?: Record<string, string>;
}

const refused: Row[] = [
  { name: 'chat: model twice', path: '/v1/chat/completions', style: 'openai', body: `{"model":"${models.vipOnly}","model":"${models.chat}","messages":${messages}}`, names: ['model'] },
  { name: 'chat: max_tokens twice, apart', path: '/v1/chat/completions', style: 'openai', body: `{"model":"${models.chat}","max_tokens":100000,"messages":${messages},"max_tokens":5}`, names: ['max_tokens'] },
  { name: 'chat: n twice', path: '/v1/chat/completions', style: 'openai', body: `{"model":"${models.chat}","n":128,"max_tokens":5,"messages":${messages},"n":1}`, names: ['n'] },
  { name: 'chat: model twice, once written with a \\u escape', path: '/v1/chat/completions', style: 'openai', body: `{"mo\\u0064el":"${models.vipOnly}","model":"${models.chat}","messages":${messages}}`, names: ['model'] },
  { name: 'chat: role twice in one message', path: '/v1/chat/completions', style: 'openai', body: `{"model":"${models.chat}","messages":[{"role":"system","role":"user","content":"hi"}]}`, names: ['role'] },
  { name: 'chat, streamed: max_tokens twice', path: '/v1/chat/completions', style: 'openai', body: `{"model":"${models.chat}","stream":true,"max_tokens":100000,"max_tokens":5,"messages":${messages}}`, names: ['max_tokens'] },
  { name: 'responses: max_output_tokens twice', path: '/v1/responses', style: 'openai', body: `{"model":"${models.chat}","max_output_tokens":100000,"input":"hi","max_output_tokens":16}`, names: ['max_output_tokens'] },
  { name: 'embeddings: model twice', path: '/v1/embeddings', style: 'openai', body: `{"model":"${models.chat}","input":"hi","model":"${models.embedding}"}`, names: ['model'] },
  { name: 'messages: max_tokens twice', path: '/v1/messages', style: 'anthropic', headers: anthropicHeaders, body: `{"model":"${models.claude}","max_tokens":100000,"messages":${messages},"max_tokens":5}`, names: ['max_tokens'] },
  { name: 'gemini: generationConfig.maxOutputTokens twice', path: geminiPath('generateContent'), style: 'gemini', body: `{"contents":${contents},"generationConfig":{"maxOutputTokens":100000,"maxOutputTokens":5}}`, names: ['maxOutputTokens'] },
  { name: 'gemini, streamed: generationConfig twice', path: geminiPath('streamGenerateContent?alt=sse'), style: 'gemini', body: `{"contents":${contents},"generationConfig":{"maxOutputTokens":100000},"generationConfig":{"maxOutputTokens":5}}`, names: ['generationConfig'] },
  { name: 'gemini: generationConfig then generation_config', path: geminiPath('generateContent'), style: 'gemini', body: `{"contents":${contents},"generationConfig":{"maxOutputTokens":5},"generation_config":{"max_output_tokens":100000}}`, names: ['generationConfig', 'generation_config'] },
  { name: 'gemini, streamed: maxOutputTokens then max_output_tokens', path: geminiPath('streamGenerateContent?alt=sse'), style: 'gemini', body: `{"contents":${contents},"generationConfig":{"maxOutputTokens":5,"max_output_tokens":100000}}`, names: ['maxOutputTokens', 'max_output_tokens'] },
  { name: 'gemini, JSON array stream: max_output_tokens then maxOutputTokens', path: geminiPath('streamGenerateContent'), style: 'gemini', body: `{"contents":${contents},"generation_config":{"max_output_tokens":100000,"maxOutputTokens":5}}`, names: ['maxOutputTokens', 'max_output_tokens'] },
  { name: 'gemini: inline_data and inlineData in one part', path: geminiPath('generateContent'), style: 'gemini', body: '{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"AAAA"},"inline_data":{"mime_type":"image/png","data":"BBBB"}}]}]}', names: ['inlineData', 'inline_data'] },
  { name: 'console login: username twice', path: '/api/user/login', style: 'api', body: '{"username":"alice","username":"root","password":"x"}', names: ['username'] },
];

describe('a key named twice in one object is refused in the route\'s envelope, naming it, with no upstream call and no charge', () => {
  for (const row of refused) {
    it(row.name, async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, row.path, { body: row.body, ...(row.headers ? { headers: row.headers } : {}) }));
      expect(sent.status, sent.text).toBe(400);
      const message = expectEnvelope(sent, row.style);
      for (const name of row.names) expect(message).toContain(`"${name}"`);
      if (row.style === 'openai') expect(sent.body.error.type).toBe('invalid_request_error');
    });
  }
});

describe('the same key in different objects, or quoted inside a string, is served', () => {
  const served: Row[] = [
    { name: 'chat: a role in every message, a model named inside the content', path: '/v1/chat/completions', style: 'openai', body: `{"model":"${models.chat}","messages":[{"role":"system","content":"{\\"model\\":\\"x\\",\\"model\\":\\"y\\"}"},{"role":"user","content":"hi"}],"max_tokens":5}`, names: [] },
    { name: 'messages: max_tokens once, a tool schema with its own max_tokens property', path: '/v1/messages', style: 'anthropic', headers: anthropicHeaders, body: `{"model":"${models.claude}","max_tokens":5,"messages":${messages},"tools":[{"name":"t","input_schema":{"type":"object","properties":{"max_tokens":{"type":"integer"}}}}]}`, names: [] },
    { name: 'gemini: snake_case alone', path: geminiPath('generateContent'), style: 'gemini', body: `{"contents":${contents},"generation_config":{"max_output_tokens":5}}`, names: [] },
    // Function arguments and schemas are the caller's data: their names are never camelized, so both spellings are two properties.
    { name: 'gemini: both spellings as two properties of a function schema', path: geminiPath('generateContent'), style: 'gemini', body: `{"contents":${contents},"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{"max_tokens":{"type":"integer"},"maxTokens":{"type":"integer"}}}}]}]}`, names: [] },
  ];
  for (const row of served) {
    it(row.name, async () => {
      const calls = fixture.upstreamCalls();
      const sent = await send(fixture, row.path, { body: row.body, ...(row.headers ? { headers: row.headers } : {}) });
      expect(sent.status, sent.text).toBe(200);
      expect(fixture.upstreamCalls() - calls).toBe(1);
    });
  }
});

/** A fetch that writes `,"<key>":<value>` into the top-level object of the SDK's JSON body, before its closing brace. */
function fetchRepeating(key: string, value: string): typeof fetch {
  return (input, init) => {
    const body = typeof init?.body === 'string' ? init.body.replace(/}\s*$/, `,"${key}":${value}}`) : init?.body;
    return fetch(input, { ...init, body });
  };
}

describe('the SDKs', () => {
  it('openai: an ordinary chat is served; one whose body repeats max_tokens is a BadRequestError naming it', async () => {
    const client = new OpenAI({ apiKey: keys.good, baseURL: `${fixture.url}/v1`, maxRetries: 0 });
    const served = await client.chat.completions.create({ model: models.chat, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
    expect(served.choices[0]?.message.content).toBeTypeOf('string');

    const repeating = new OpenAI({ apiKey: keys.good, baseURL: `${fixture.url}/v1`, maxRetries: 0, fetch: fetchRepeating('max_tokens', '100000') });
    const error = await refusal(fixture, () => repeating.chat.completions.create({ model: models.chat, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('"max_tokens"');
  });

  it('anthropic: an ordinary message is served; one whose body repeats model is a BadRequestError naming it', async () => {
    const client = new Anthropic({ apiKey: keys.good, baseURL: fixture.url, maxRetries: 0 });
    const served = await client.messages.create({ model: models.claude, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect(served.type).toBe('message');

    const repeating = new Anthropic({ apiKey: keys.good, baseURL: fixture.url, maxRetries: 0, fetch: fetchRepeating('model', `"${models.claude}"`) });
    const error = await refusal(fixture, () => repeating.messages.create({ model: models.claude, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringContaining('"model"') } });
  });

  it('@google/genai: config.maxOutputTokens is served; with extraBody generation_config beside it, ApiError 400 naming both spellings', async () => {
    const client = new GoogleGenAI({ apiKey: keys.good, httpOptions: { baseUrl: fixture.url } });
    const served = await client.models.generateContent({ model: models.gemini, contents: 'hi', config: { maxOutputTokens: 5 } });
    expect(served.text).toBeTypeOf('string');

    const error = await refusal(fixture, () =>
      client.models.generateContent({
        model: models.gemini,
        contents: 'hi',
        config: { maxOutputTokens: 5, httpOptions: { baseUrl: fixture.url, extraBody: { generation_config: { max_output_tokens: 100_000 } } } },
      }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400 });
    // ApiError's message is the JSON text of Google's envelope.
    const envelope = JSON.parse((error as ApiError).message) as { error: { status: string; message: string } };
    expect(envelope.error.status).toBe('INVALID_ARGUMENT');
    expect(envelope.error.message).toContain('"generation_config"');
    expect(envelope.error.message).toContain('"generationConfig"');
  });
});
