import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { createTestContext } from '../test-support/create-test-context.js';
import { createOpenaiResponsesStreamEncoder } from './encode-openai-responses-stream.js';
import { formatOpenaiResponsesResponse } from './format-openai-responses-response.js';
import { canonicalResponses } from './test-support/canonical-responses.js';
import { readScenario } from './test-support/read-fixture.js';
import { encodeParts } from './test-support/run-stream.js';

const errorScenario: CanonicalStreamPart[] = [
  { type: 'start', id: 'msg_1', model: 'm', created: 1760000000 },
  { type: 'text-delta', text: 'Partial' },
  { type: 'error', message: 'Overloaded', code: 'overloaded_error' },
  { type: 'finish', finishReason: { unified: 'error', raw: 'error' }, usage: undefined },
];

/**
 * A stand-in upstream: `model` names a scenario (streamed, from src/convert/scenarios) or a canonical response
 * (not streamed); the body is whatever the converters under test produce from it.
 */
function serve(model: string, stream: boolean): { contentType: string; body: string } {
  if (stream) {
    const parts = model === 'error' ? errorScenario : readScenario(model);
    return { contentType: 'text/event-stream', body: encodeParts(createOpenaiResponsesStreamEncoder(createTestContext(model)), parts) };
  }
  const response = canonicalResponses[model];
  if (response === undefined) throw new Error(`no canonical response ${model}`);
  return { contentType: 'application/json', body: JSON.stringify(formatOpenaiResponsesResponse(response, createTestContext(model)).value) };
}

let server: Server;
let client: OpenAI;

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const body = JSON.parse(text) as { model: string; stream?: boolean };
      const answer = serve(body.model, body.stream === true);
      response.writeHead(200, { 'content-type': answer.contentType });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new OpenAI({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the official openai SDK reading the Responses encoder', () => {
  it('assembles the text scenario with responses.stream().finalResponse()', async () => {
    const response = await client.responses.stream({ model: 'text', input: 'Hi' }).finalResponse();
    expect(response).toMatchObject({ status: 'completed', output_text: 'Hello, world!', model: 'text', usage: { input_tokens: 25, output_tokens: 12, total_tokens: 37 } });
  });

  it('assembles a text reply and a function call from the tool-call scenario', async () => {
    const response = await client.responses.stream({ model: 'tool-call', input: 'Weather?' }).finalResponse();
    expect(response.output_text).toBe('Let me check.');
    expect(response.output).toMatchObject([
      { type: 'message', status: 'completed' },
      { type: 'function_call', call_id: 'call_weather_1', name: 'get_weather', arguments: '{"location":"Paris"}', status: 'completed' },
    ]);
  });

  it('assembles both calls of the parallel-tool-calls scenario, each with its own arguments', async () => {
    const response = await client.responses.stream({ model: 'parallel-tool-calls', input: 'Weather and time?' }).finalResponse();
    expect(response.output).toMatchObject([
      { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"location":"Paris"}' },
      { type: 'function_call', call_id: 'call_b', name: 'get_time', arguments: '{"zone":"CET"}' },
    ]);
  });

  it('assembles the reasoning summary, its signature and the answer of the thinking scenario', async () => {
    const response = await client.responses.stream({ model: 'thinking', input: '2+2?' }).finalResponse();
    expect(response.output).toMatchObject([
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'The user asks for 2+2. That is 4.' }], encrypted_content: 'signature:EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
      { type: 'message' },
    ]);
    expect(response.output_text).toBe('2 + 2 = 4.');
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(38);
  });

  it('reports the max-tokens scenario as incomplete and the cache-usage scenario with its cache counts', async () => {
    const incomplete = await client.responses.stream({ model: 'max-tokens', input: 'Story' }).finalResponse();
    expect(incomplete).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output_text: 'Once upon a time there' });
    const cached = await client.responses.stream({ model: 'cache-usage', input: 'Again' }).finalResponse();
    expect(cached.usage).toMatchObject({ input_tokens: 2100, input_tokens_details: { cached_tokens: 1800 } });
  });

  it.each(['text', 'tool-call', 'parallel-tool-calls', 'thinking'])('yields every %s event to responses.create({ stream: true }) in sequence order', async (model) => {
    const stream = await client.responses.create({ model, input: 'x', stream: true });
    const events: { type: string; sequence_number: number }[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0]?.type).toBe('response.created');
    expect(events.at(-1)?.type).toBe('response.completed');
  });

  it('rejects finalResponse() on a streamed error, as it does for OpenAI', async () => {
    await expect(client.responses.stream({ model: 'error', input: 'x' }).finalResponse()).rejects.toMatchObject({ type: 'error', message: 'Overloaded' });
  });

  it.each(['text', 'tool-call', 'thinking-with-signature', 'max-tokens'])('reads the %s body with responses.create()', async (model) => {
    const response = await client.responses.create({ model, input: 'x' });
    const expected = canonicalResponses[model]!;
    const text = expected.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    expect(response.output_text).toBe(text);
    expect(response.output.map((item) => item.type)).toEqual(
      expected.content.map((part) => (part.type === 'text' ? 'message' : part.type === 'tool-call' ? 'function_call' : 'reasoning')),
    );
    expect(response.usage?.input_tokens).toBe(expected.usage?.input.total);
  });
});
