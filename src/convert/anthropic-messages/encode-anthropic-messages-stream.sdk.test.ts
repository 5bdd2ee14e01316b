import Anthropic from '@anthropic-ai/sdk';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalResponse, CanonicalStreamPart } from '../../canonical/conversion.js';
import { createAnthropicMessagesStreamEncoder } from './encode-anthropic-messages-stream.js';
import { formatAnthropicMessagesResponse } from './format-anthropic-messages-response.js';
import { createTestConversionContext } from './test-support/create-test-conversion-context.js';

const here = dirname(fileURLToPath(import.meta.url));
const scenario = (name: string): CanonicalStreamPart[] =>
  readFileSync(join(here, '..', 'scenarios', `${name}.parts.jsonl`), 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as CanonicalStreamPart);

function encodeScenario(parts: CanonicalStreamPart[]): string {
  const encoder = createAnthropicMessagesStreamEncoder(createTestConversionContext());
  return parts.map((part) => encoder.encode(part)).join('') + encoder.end();
}

/** What the fake upstream answers next: SSE text, or a JSON body. */
let nextReply: { sse: string } | { json: unknown } = { json: {} };
let server: Server;
let client: Anthropic;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if ('sse' in nextReply) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        // Written in small pieces, as a network would deliver it.
        const text = nextReply.sse;
        for (let offset = 0; offset < text.length; offset += 37) response.write(text.slice(offset, offset + 37));
        response.end();
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(nextReply.json));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new Anthropic({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'test-key', maxRetries: 0 });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const request = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('Anthropic SDK reading the encoder output', () => {
  it('rebuilds the text scenario with stop reason and usage', async () => {
    nextReply = { sse: encodeScenario(scenario('text')) };
    const message = await client.messages.stream(request).finalMessage();
    expect(message).toMatchObject({
      id: 'msg_1', model: 'claude-sonnet-4-5', role: 'assistant', stop_reason: 'end_turn',
      content: [{ type: 'text', text: 'Hello, world!' }],
      usage: { input_tokens: 25, output_tokens: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    });
  });

  it('rebuilds the tool-call scenario with parsed input and stop reason tool_use', async () => {
    nextReply = { sse: encodeScenario(scenario('tool-call')) };
    const message = await client.messages.stream(request).finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'call_weather_1', name: 'get_weather', input: { location: 'Paris' } },
    ]);
  });

  it('rebuilds the parallel tool calls as two tool_use blocks', async () => {
    nextReply = { sse: encodeScenario(scenario('parallel-tool-calls')) };
    const message = await client.messages.stream(request).finalMessage();
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { location: 'Paris' } },
      { type: 'tool_use', id: 'call_b', name: 'get_time', input: { zone: 'CET' } },
    ]);
  });

  it('rebuilds the thinking scenario with its signature and thinking tokens', async () => {
    nextReply = { sse: encodeScenario(scenario('thinking')) };
    const stream = client.messages.stream(request);
    const signatures: string[] = [];
    stream.on('signature', (signature) => signatures.push(signature));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'The user asks for 2+2. That is 4.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
      { type: 'text', text: '2 + 2 = 4.' },
    ]);
    expect(signatures).toEqual(['EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds']);
    expect(message.usage.output_tokens_details).toEqual({ thinking_tokens: 38 });
  });

  it('reports cache reads and writes apart from input_tokens', async () => {
    nextReply = { sse: encodeScenario(scenario('cache-usage')) };
    const message = await client.messages.stream(request).finalMessage();
    expect(message.usage).toMatchObject({ input_tokens: 100, cache_read_input_tokens: 1800, cache_creation_input_tokens: 200, output_tokens: 7 });
  });

  it('surfaces a stream cut before finish as an error, not as a complete message', async () => {
    nextReply = { sse: encodeScenario(scenario('text').slice(0, 2)) };
    await expect(client.messages.stream(request).finalMessage()).rejects.toThrow(/ended before the message was complete/);
  });

  it('reads a formatted non-streamed response through messages.create', async () => {
    const response = JSON.parse(readFileSync(join(here, '__fixtures__', 'canonical-response-parallel-tool-calls.json'), 'utf8')) as CanonicalResponse;
    nextReply = { json: formatAnthropicMessagesResponse(response, createTestConversionContext()).value };
    const message = await client.messages.create(request);
    expect(message).toMatchObject({
      type: 'message', stop_reason: 'tool_use',
      content: [
        { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { location: 'Paris' } },
        { type: 'tool_use', id: 'call_b', name: 'get_time', input: { zone: 'CET' } },
      ],
      usage: { input_tokens: 25, output_tokens: 12 },
    });
  });
});
