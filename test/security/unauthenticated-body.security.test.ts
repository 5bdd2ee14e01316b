/**
 * From the bad-input audit: a request without a usable key is refused before its body is read. The key
 * check runs at `onRequest`, so the gateway does not wait for, buffer and JSON-parse up to max_body_mb
 * (64 MB by default) for a caller it will answer 401 anyway, and the refusal closes the connection, so
 * node:http does not go on reading the rest of the announced body on a keep-alive socket.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import net from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const validKey = `sk-${'Va1id'.repeat(9)}abc`;
const unknownKey = `sk-${'n'.repeat(48)}`;

interface PartialAnswer {
  /** Everything that came back (latin1). */
  text: string;
  /** Whether the gateway ended the connection (FIN) while the client still owed most of the body. */
  closedByGateway: boolean;
}

/** Sends the head and the first `firstBytes` of a body announced as `contentLength`; resolves with what came back within `waitMs`. */
function partialPost(url: string, path: string, headers: Record<string, string>, contentLength: number, firstBytes: string, waitMs: number): Promise<PartialAnswer> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(target.port), target.hostname);
    let text = '';
    let closedByGateway = false;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedByGateway });
    };
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('end', () => {
      closedByGateway = true;
      done();
    });
    socket.on('error', () => done());
    socket.on('close', () => done());
    const timer = setTimeout(done, waitMs);
    const head = Object.entries({ host: target.host, 'content-type': 'application/json', 'content-length': String(contentLength), ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n${firstBytes}`);
  });
}

function headerOf(answer: string, name: string): string | undefined {
  const head = answer.split('\r\n\r\n', 1)[0] ?? '';
  const line = head.split('\r\n').find((candidate) => candidate.toLowerCase().startsWith(`${name}:`));
  return line?.slice(name.length + 1).trim();
}

describe('a request without a usable key is refused before its body is read (bad keys + huge bodies)', () => {
  let gateway: TestGateway;
  let openai: FakeOpenaiUpstream;
  beforeAll(async () => {
    openai = await startFakeOpenaiUpstream({ expectedKeys: ['sk-openai-upstream'] });
    gateway = await startTestGateway({
      config: {
        max_body_mb: 64,
        prices: { 'gpt-4o-mini': { input: 1, output: 2 }, 'claude-x': { input: 1, output: 2 }, 'gemini-x': { input: 1, output: 2 } },
        channels: [{ name: 'openai', type: 'openai', base_url: openai.url, key: 'sk-openai-upstream', models: ['gpt-4o-mini', 'claude-x', 'gemini-x'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
        tokens: [{ name: 'valid', key: validKey, expires_at: 0, enabled: true, unlimited_quota: true }],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await openai?.close();
  });

  const openaiStyle = /"error":\{"message":"[^"]*\(request id: [0-9a-f]+\)","type":"authentication_error"/;
  const apiStyle = /^\{"success":false,"message":"/m;
  // 60 MB announced (under the 64 MB limit), 1 KB sent: the key alone decides the answer, on every family
  // of routes that takes a body, in the route's own envelope.
  it.each([
    { name: 'OpenAI chat, no key', path: '/v1/chat/completions', headers: {} as Record<string, string>, style: /"error":\{"message":"No API key provided/ },
    { name: 'OpenAI chat, unknown key', path: '/v1/chat/completions', headers: { authorization: `Bearer ${unknownKey}` }, style: /"code":"invalid_api_key"/ },
    { name: 'Responses, unknown key', path: '/v1/responses', headers: { authorization: `Bearer ${unknownKey}` }, style: openaiStyle },
    { name: 'Anthropic messages, unknown x-api-key', path: '/v1/messages', headers: { 'x-api-key': unknownKey }, style: /"type":"error","error":\{"type":"authentication_error"/ },
    { name: 'Anthropic messages, no key', path: '/v1/messages', headers: {}, style: /"type":"error","error":\{"type":"authentication_error","message":"No API key provided. Send it as `x-api-key/ },
    { name: 'Gemini generateContent, no key', path: '/v1beta/models/gemini-x:generateContent', headers: {}, style: /"status":"UNAUTHENTICATED"/ },
    { name: 'Gemini generateContent, unknown ?key=', path: `/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=${unknownKey}`, headers: {}, style: /"error":\{"code":401,"message":"[^"]*","status":"UNAUTHENTICATED"/ },
    { name: 'embeddings, no key', path: '/v1/embeddings', headers: {}, style: openaiStyle },
    { name: 'legacy engines embeddings, no key', path: '/v1/engines/text-embedding-3-small/embeddings', headers: {}, style: openaiStyle },
    { name: 'image edits (multipart), no key', path: '/v1/images/edits', headers: { 'content-type': 'multipart/form-data; boundary=x' }, style: openaiStyle },
    { name: 'videos, no key', path: '/v1/videos', headers: {}, style: openaiStyle },
    { name: 'conversations create, no key', path: '/v1/conversations', headers: {}, style: openaiStyle },
    { name: 'asset createMedia, no key', path: '/api/asset/createMedia', headers: {}, style: openaiStyle },
    { name: 'Kling native, no key', path: '/kling/v1/videos/text2video', headers: {}, style: /^\{"code":"[a-z_]+","message":"[^"]*","data":null\}/m },
    { name: 'Suno submit, no key', path: '/suno/submit/music', headers: {}, style: /^\{"code":"[a-z_]+","message":"[^"]*","data":null\}/m },
    { name: 'Midjourney imagine, unknown mj-api-secret', path: '/mj/submit/imagine', headers: { 'mj-api-secret': unknownKey }, style: /^\{"code":4,"description":"[^"]*","type":"invalid_api_key","result":null\}/m },
    { name: 'upload presign, no key', path: '/api/upload/presign', headers: {}, style: apiStyle },
    { name: 'playground, no session', path: '/pg/chat/completions', headers: {}, style: openaiStyle },
    { name: 'admin API, no admin key', path: '/api/admin/channels', headers: {}, style: apiStyle },
    { name: 'admin API, wrong admin key', path: '/api/admin/tokens', headers: { authorization: `Bearer ${unknownKey}` }, style: apiStyle },
  ])('$name: 401 in the style envelope without waiting for the 60 MB body, and the connection closed', async ({ path, headers, style }) => {
    const answer = await partialPost(gateway.url, path, headers, 60 * 1024 * 1024, `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"${'x'.repeat(1000)}`, 3000);
    expect(answer.text.split('\r\n', 1)[0], 'status line within 3 s (empty: the gateway is still waiting for the body)').toBe('HTTP/1.1 401 Unauthorized');
    expect(answer.text).toMatch(style);
    expect(headerOf(answer.text, 'x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(headerOf(answer.text, 'access-control-allow-origin')).toBe('*');
    // Not kept alive to read and discard the 60 MB still owed: the gateway says so and ends the connection.
    expect(headerOf(answer.text, 'connection')?.toLowerCase()).toBe('close');
    expect(answer.closedByGateway, 'the gateway ends the connection after its 401').toBe(true);
    expect(openai.requests.length).toBe(0);
  });

  it('Anthropic messages: the 401 carries request-id, which the Anthropic SDK reads', async () => {
    const answer = await partialPost(gateway.url, '/v1/messages', { 'x-api-key': unknownKey }, 60 * 1024 * 1024, '{"model":"claude-x"', 3000);
    expect(answer.text.split('\r\n', 1)[0]).toBe('HTTP/1.1 401 Unauthorized');
    expect(headerOf(answer.text, 'request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(headerOf(answer.text, 'request-id')).toBe(headerOf(answer.text, 'x-request-id'));
  });

  // Fastify closes these itself (a body its parser refused); kept beside the refusals above as the same rule.
  it('a valid key with a Content-Length over max_body_mb: 413 at once, and the connection closed', async () => {
    const answer = await partialPost(gateway.url, '/v1/chat/completions', { authorization: `Bearer ${validKey}` }, 70 * 1024 * 1024, '{"model":"gpt-4o-mini"', 3000);
    expect(answer.text.split('\r\n', 1)[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(headerOf(answer.text, 'connection')?.toLowerCase()).toBe('close');
    expect(answer.closedByGateway).toBe(true);
  });

  it('a 30 MB deeply nested body with no key is answered 401 without first being read and parsed', async () => {
    const body = `${'['.repeat(15_000_000)}${']'.repeat(15_000_000)}`;
    const started = Date.now();
    let finished = false;
    const refused = fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (answer) => {
      await answer.text();
      finished = true;
      return answer;
    });
    // Other (well-behaved) clients' health checks while that body is handled: the slowest one.
    let slowestHealthMs = 0;
    while (!finished && Date.now() - started < 30_000) {
      const healthStarted = Date.now();
      await fetch(`${gateway.url}/healthz`).then((answer) => answer.text());
      slowestHealthMs = Math.max(slowestHealthMs, Date.now() - healthStarted);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answer = await refused;
    const refusedMs = Date.now() - started;
    expect(answer.status).toBe(401);
    // The stall other clients see varies with the machine's load (5 s was seen once on the 2-core box); the bar is the 401's own delay.
    // Parsing the 30 MB first took 5–12 s on this machine; refused unread it is milliseconds (4 s leaves room for a loaded CI host).
    expect(refusedMs, `401 after ${refusedMs} ms (slowest /healthz meanwhile ${slowestHealthMs} ms)`).toBeLessThan(4000);
  }, 60_000);

  // The SDKs are still uploading when the 401 comes and the connection closes: each sees its typed 401, not a connection error.
  const bigPrompt = 'x'.repeat(20 * 1024 * 1024);
  it('the openai SDK sending a 20 MB prompt with a wrong key gets AuthenticationError', async () => {
    const client = new OpenAI({ apiKey: unknownKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const error = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: bigPrompt }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
  }, 30_000);

  it('the Anthropic SDK sending a 20 MB prompt with a wrong key gets AuthenticationError', async () => {
    const client = new Anthropic({ apiKey: unknownKey, baseURL: gateway.url, maxRetries: 0 });
    const error = await client.messages.create({ model: 'claude-x', max_tokens: 16, messages: [{ role: 'user', content: bigPrompt }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
  }, 30_000);

  it('@google/genai sending a 20 MB prompt with a wrong key gets ApiError 401', async () => {
    const client = new GoogleGenAI({ apiKey: unknownKey, httpOptions: { baseUrl: gateway.url } });
    const error = await client.models.generateContent({ model: 'gemini-x', contents: bigPrompt }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
  }, 30_000);

  it('a valid key is still admitted with its body read, and a preflight still needs no key', async () => {
    const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${validKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('connection')).not.toBe('close');
    await answer.text();
    expect(openai.requests.length).toBe(1);

    const preflight = await fetch(`${gateway.url}/v1/messages`, { method: 'OPTIONS', headers: { origin: 'https://chat.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('a small body with a wrong key: 401 with its request id and CORS headers', async () => {
    const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${unknownKey}`, 'content-type': 'application/json' },
      body: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}',
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
  });
});
