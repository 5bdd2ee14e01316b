import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { createTestContext } from '../test-support/create-test-context.js';
import { createOpenaiChatStreamEncoder } from './encode-openai-chat-stream.js';

const scenarioDirectory = join(import.meta.dirname, '..', 'scenarios');

const brokenStream: CanonicalStreamPart[] = [
  { type: 'start', id: 'gen_broken_1', model: 'm', created: 1760000000 },
  { type: 'text-delta', text: 'Hel' },
  { type: 'error', message: 'Overloaded', code: 'overloaded_error' },
];

function readScenario(name: string): CanonicalStreamPart[] {
  if (name === 'broken') return brokenStream;
  return readFileSync(join(scenarioDirectory, `${name}.parts.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CanonicalStreamPart);
}

/** Serves the encoder's output for the scenario named by the request's `model`, one part per write. */
function startServer(): Promise<Server> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const wire = JSON.parse(body) as { model: string; stream_options?: { include_usage?: boolean } };
      const encoder = createOpenaiChatStreamEncoder(createTestContext(wire.model), { includeUsage: wire.stream_options?.include_usage === true });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const part of readScenario(wire.model)) response.write(encoder.encode(part));
      response.end(encoder.end());
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('createOpenaiChatStreamEncoder with the official openai SDK', () => {
  let server: Server;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startServer();
    client = new OpenAI({ apiKey: 'test', baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const streamScenario = (scenario: string) =>
    client.chat.completions
      .stream({ model: scenario, messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } })
      .finalChatCompletion();

  it('assembles the text scenario into a completion with usage', async () => {
    const completion = await streamScenario('text');
    expect(completion).toMatchObject({
      id: 'gen_text_1',
      model: 'text',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hello, world!', refusal: null } }],
      usage: { prompt_tokens: 25, completion_tokens: 12, total_tokens: 37 },
    });
  });

  it('assembles the tool-call scenario: text, then one call with its whole arguments', async () => {
    const completion = await streamScenario('tool-call');
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        content: 'Let me check.',
        tool_calls: [{ id: 'call_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }],
      },
    });
  });

  it('assembles the parallel-tool-calls scenario into two calls, and fires a done event for each', async () => {
    const stream = client.chat.completions.stream({ model: 'parallel-tool-calls', messages: [{ role: 'user', content: 'hi' }] });
    const done: string[] = [];
    stream.on('tool_calls.function.arguments.done', (event) => done.push(`${event.name} ${event.arguments}`));
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
      { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"zone":"CET"}' } },
    ]);
    expect(completion.choices[0]?.message.content).toBeNull();
    expect(completion.usage).toBeUndefined();
    expect(done).toEqual(['get_weather {"location":"Paris"}', 'get_time {"zone":"CET"}']);
  });

  it('assembles the max-tokens scenario with finish_reason length', async () => {
    const completion = await streamScenario('max-tokens');
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'Once upon a time there' } });
  });

  it('raises an upstream error sent mid-stream as an APIError carrying its message and OpenAI\'s code for it', async () => {
    const error: unknown = await streamScenario('broken').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ message: 'Overloaded', code: 'server_is_overloaded', type: 'server_error' });
  });
});
