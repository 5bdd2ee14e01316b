import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FunctionCallingConfigMode, type GenerateContentResponse, GoogleGenAI, Type } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { createGeminiStreamEncoder } from './encode-gemini-stream.js';
import { formatGeminiResponse } from './format-gemini-response.js';
import { parseGeminiRequest } from './parse-gemini-request.js';
import { fixedContext } from './test-support/fixed-context.js';
import { readFixtureJson } from './test-support/read-recorded-chunks.js';

/**
 * Our encoder's and formatter's output served to the official @google/genai SDK, which must read it as it
 * reads Google's; and what the SDK sends must parse. The server answers with whatever `next` holds.
 */
const scenarioFolder = new URL('../scenarios/', import.meta.url).pathname;
const readScenario = (name: string): CanonicalStreamPart[] =>
  readFileSync(`${scenarioFolder}${name}.parts.jsonl`, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CanonicalStreamPart);

/** The visible text of a response, read from its parts (the SDK's `.text` logs when calls are present). */
function textOf(response: GenerateContentResponse): string {
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  return parts.map((part) => (part.thought === true ? '' : (part.text ?? ''))).join('');
}

function encodeScenario(parts: CanonicalStreamPart[]): string {
  const encoder = createGeminiStreamEncoder(fixedContext('gemini-2.5-flash'));
  return parts.map((part) => encoder.encode(part)).join('') + encoder.end();
}

interface Captured {
  path: string;
  body: unknown;
}

let server: Server;
let client: GoogleGenAI;
const requests: Captured[] = [];
let next: { stream: string[] } | { json: unknown } = { json: {} };

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void readBody(request).then(async (text) => {
      requests.push({ path: request.url ?? '', body: JSON.parse(text) });
      if ('json' in next) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(next.json));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // One write per event, with a pause, so the SDK reads them as they come.
      for (const frame of next.stream) {
        response.write(frame);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: `http://127.0.0.1:${port}` } });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function serveScenario(name: string): void {
  next = { stream: encodeScenario(readScenario(name)).split(/(?<=\n\n)/) };
}

describe('the Gemini stream encoder, read by @google/genai', () => {
  it('streams text that generateContentStream reads chunk by chunk, with usage and the finish reason last', async () => {
    serveScenario('text');
    const stream = await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Say hello', config: { systemInstruction: 'Be kind.', temperature: 0.3 } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text ?? '').join('')).toBe('Hello, world!');
    const last = chunks.at(-1);
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last?.usageMetadata).toMatchObject({ promptTokenCount: 25, candidatesTokenCount: 12, totalTokenCount: 37 });
    expect(last?.responseId).toBe('gen_text_1');

    expect(requests.at(-1)?.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    const parsed = parseGeminiRequest(requests.at(-1)?.body);
    expect(parsed).toMatchObject({
      value: { system: [{ type: 'text', text: 'Be kind.' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }], temperature: 0.3 },
      warnings: [],
    });
  });

  it('streams a tool call that the SDK exposes as functionCalls, with id and parsed args', async () => {
    serveScenario('tool-call');
    const stream = await client.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'Weather in Paris?',
      config: {
        tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: Type.OBJECT, properties: { location: { type: Type.STRING } } } }] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } },
      },
    });
    const calls = [];
    let text = '';
    for await (const chunk of stream) {
      calls.push(...(chunk.functionCalls ?? []));
      text += textOf(chunk);
    }
    expect(text).toBe('Let me check.');
    expect(calls).toEqual([{ id: 'call_weather_1', name: 'get_weather', args: { location: 'Paris' } }]);

    const parsed = parseGeminiRequest(requests.at(-1)?.body);
    expect(parsed).toMatchObject({
      value: {
        tools: [{ name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } }],
        toolChoice: { type: 'auto' },
      },
      warnings: [],
    });
  });

  it('streams parallel calls as two function calls', async () => {
    serveScenario('parallel-tool-calls');
    const stream = await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Paris weather and CET time' });
    const calls = [];
    for await (const chunk of stream) calls.push(...(chunk.functionCalls ?? []));
    expect(calls).toEqual([
      { id: 'call_a', name: 'get_weather', args: { location: 'Paris' } },
      { id: 'call_b', name: 'get_time', args: { zone: 'CET' } },
    ]);
  });

  it('keeps thoughts and their signature in a chat history that parses back into one signed reasoning', async () => {
    serveScenario('thinking');
    const chat = client.chats.create({ model: 'gemini-2.5-flash', config: { thinkingConfig: { includeThoughts: true } } });
    let answer = '';
    for await (const chunk of await chat.sendMessageStream({ message: 'What is 2+2?' })) answer += chunk.text ?? '';
    expect(answer).toBe('2 + 2 = 4.');

    serveScenario('text');
    for await (const chunk of await chat.sendMessageStream({ message: 'Thanks' })) void chunk;
    const parsed = parseGeminiRequest(requests.at(-1)?.body);
    if ('invalid' in parsed) throw new Error(parsed.message);
    expect(parsed.value.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is 2+2?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'The user asks for 2+2. That is 4.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds', issuer: 'google' },
          { type: 'text', text: '2 + 2 = 4.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]);
    expect(parsed.value.reasoning).toEqual({ includeThoughts: true });
  });
});

describe('the Gemini response formatter, read by @google/genai', () => {
  it('gives generateContent a response with text, thoughts, function calls and usage', async () => {
    const response = readFixtureJson('canonical-response-thinking-tool-call.json') as CanonicalResponse;
    next = { json: formatGeminiResponse(response, fixedContext('gemini-2.5-pro')).value };
    const result = await client.models.generateContent({ model: 'gemini-2.5-pro', contents: 'Weather in Paris?' });
    expect(requests.at(-1)?.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    expect(textOf(result)).toBe('Let me check.');
    expect(result.functionCalls).toEqual([
      { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', args: { location: 'Paris' } },
      { id: 'toolu_01B7s2Rk1L2a3b4c5d6e7f8g', name: 'get_time', args: {} },
    ]);
    expect(result.candidates?.[0]?.content?.parts?.[0]).toEqual({ text: 'The user wants the weather; call the tool.', thought: true });
    expect(result.usageMetadata).toMatchObject({ promptTokenCount: 2100, cachedContentTokenCount: 1800, thoughtsTokenCount: 40, candidatesTokenCount: 55 });
    expect(result.modelVersion).toBe('gemini-2.5-pro');
  });
});
