import { afterEach, describe, expect, it } from 'vitest';
import { anthropicHeaders, openaiHeaders, startStreamGateway, startByteUpstream, type StreamGateway, type ByteUpstream } from './stream-fixture.js';

/**
 * RELAY_FIRST_BYTE_TIMEOUT bounds the wait for an upstream's response headers; STREAMING_TIMEOUT bounds upstream
 * silence between stream chunks. When every attempt fails before anything reached the client, a timeout is
 * 504 (a connection failure would be 502), on the same-style, converted and OpenAI pipe paths alike.
 */
let gw: StreamGateway | undefined;
let up: ByteUpstream | undefined;
afterEach(async () => {
  await gw?.close();
  await up?.close();
  gw = undefined;
  up = undefined;
});

const chat = (url: string) => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...openaiHeaders }, body: JSON.stringify({ model: 'm1', stream: true, max_tokens: 50, messages: [{ role: 'user', content: 'Say hello' }] }) });
const messages = (url: string) => fetch(`${url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...anthropicHeaders }, body: JSON.stringify({ model: 'm1', stream: true, max_tokens: 50, messages: [{ role: 'user', content: 'Say hello' }] }) });

const silentPaths = [
  { name: 'chat client ← chat upstream', upstream: 'openai-chat', send: chat },
  { name: 'anthropic client ← anthropic upstream', upstream: 'anthropic', send: messages },
  { name: 'anthropic client ← chat upstream (converted)', upstream: 'openai-chat', send: messages },
] as const;

describe('an upstream that sends its headers and then nothing', () => {
  for (const path of silentPaths) {
    it(`STREAMING_TIMEOUT applies (not RELAY_FIRST_BYTE_TIMEOUT) and the client gets 504, not 502: ${path.name}`, async () => {
      up = await startByteUpstream((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
      });
      gw = await startStreamGateway([{ model: 'm1', style: path.upstream, url: up.url }], { STREAMING_TIMEOUT: '1', RELAY_FIRST_BYTE_TIMEOUT: '20' });
      const started = Date.now();
      const response = await path.send(gw.gateway.url);
      const body = await response.text();
      expect(Date.now() - started).toBeLessThan(10_000); // ~1 s per attempt (3 attempts at most), not 20 s
      expect(response.status, body).toBe(504);
      const [row] = await gw.logs();
      expect(row.status).toBe(504);
      expect((await gw.reservations()).map((r) => r.state)).toEqual(['settled']);
    }, 30_000);
  }

});

describe('an upstream whose headers never come', () => {
  it('RELAY_FIRST_BYTE_TIMEOUT applies and the client gets 504', async () => {
    up = await startByteUpstream(() => undefined);
    gw = await startStreamGateway([{ model: 'm1', style: 'openai-chat', url: up.url }], { STREAMING_TIMEOUT: '20', RELAY_FIRST_BYTE_TIMEOUT: '1' });
    const started = Date.now();
    const response = await chat(gw.gateway.url);
    await response.text();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(response.status).toBe(504);
    expect((await gw.reservations()).map((r) => r.state)).toEqual(['settled']);
  }, 30_000);
});
