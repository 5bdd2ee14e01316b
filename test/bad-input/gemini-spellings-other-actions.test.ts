/**
 * A Gemini field under both proto-JSON spellings in one object (`taskType` and `task_type`), on the actions
 * that do not go through the generateContent parser: `:countTokens` read its `generateContentRequest`
 * wrapper in camelCase only, and `:embedContent` / `:batchEmbedContents` read their bodies without
 * camelizing at all. So a wrapper given both ways was counted by one while the other was ignored, the snake
 * wrapper alone was a 400 "contents: Required", both spellings of an embedding field were relayed as sent
 * (the upstream picking either), and an `inline_data` part was not counted as media (charged as text
 * only). Now they are read as `:generateContent` reads its body: both spellings → 400 in the Gemini
 * envelope naming both, no upstream call, nothing charged; one spelling, either one, is the same request.
 */
import { ApiError, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, send, withoutCharge } from './bad-input-fixture.js';
import { keys, m, startMoreRoutesFixture, type MoreRoutesFixture } from './more-routes-fixture.js';

let fixture: MoreRoutesFixture;
beforeAll(async () => {
  fixture = await startMoreRoutesFixture();
});
afterAll(async () => {
  await fixture?.close();
});

const countTokens = `/v1beta/models/${m.gemini}:countTokens`;
const embedContent = `/v1beta/models/${m.gemEmbed}:embedContent`;
const batchEmbedContents = `/v1beta/models/${m.gemEmbed}:batchEmbedContents`;
const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
const content = { parts: [{ text: 'hello' }] };
const png = { mime_type: 'image/png', data: 'AAAA' };

const refused: { name: string; path: string; body: unknown; names: [string, string] }[] = [
  { name: 'countTokens: generateContentRequest and generate_content_request', path: countTokens, body: { generateContentRequest: { contents }, generate_content_request: { contents: [...contents, ...contents] } }, names: ['generateContentRequest', 'generate_content_request'] },
  { name: 'countTokens: generate_content_request then generateContentRequest', path: countTokens, body: { generate_content_request: { contents }, generateContentRequest: { contents } }, names: ['generateContentRequest', 'generate_content_request'] },
  { name: 'countTokens, snake wrapper: system_instruction and systemInstruction inside it', path: countTokens, body: { generate_content_request: { contents, system_instruction: { parts: [{ text: 'a' }] }, systemInstruction: { parts: [{ text: 'b' }] } } }, names: ['systemInstruction', 'system_instruction'] },
  { name: 'embedContent: taskType and task_type', path: embedContent, body: { content, taskType: 'RETRIEVAL_QUERY', task_type: 'RETRIEVAL_DOCUMENT' }, names: ['taskType', 'task_type'] },
  { name: 'embedContent: output_dimensionality and outputDimensionality', path: embedContent, body: { content, output_dimensionality: 3072, outputDimensionality: 8 }, names: ['outputDimensionality', 'output_dimensionality'] },
  { name: 'embedContent: inlineData and inline_data in one part', path: embedContent, body: { content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' }, inline_data: png }] } }, names: ['inlineData', 'inline_data'] },
  { name: 'embedContent: mimeType and mime_type in one blob', path: embedContent, body: { content: { parts: [{ inline_data: { ...png, mimeType: 'image/jpeg' } }] } }, names: ['mimeType', 'mime_type'] },
  { name: 'batchEmbedContents: taskType and task_type in the second request', path: batchEmbedContents, body: { requests: [{ content }, { content, taskType: 'RETRIEVAL_QUERY', task_type: 'RETRIEVAL_DOCUMENT' }] }, names: ['taskType', 'task_type'] },
  { name: 'batchEmbedContents: file_data and fileData in one part', path: batchEmbedContents, body: { requests: [{ content: { parts: [{ fileData: { fileUri: 'https://x/a.png' }, file_data: { file_uri: 'https://x/b.png' } }] } }] }, names: ['fileData', 'file_data'] },
];

describe('both spellings of one field in one object → 400 INVALID_ARGUMENT naming both, no upstream call, no charge', () => {
  for (const row of refused) {
    it(row.name, async () => {
      const sent = await withoutCharge(fixture, () => send(fixture, row.path, { body: JSON.stringify(row.body) }));
      expect(sent.status, sent.text).toBe(400);
      const message = expectEnvelope(sent, 'gemini');
      for (const name of row.names) expect(message).toContain(`"${name}"`);
    });
  }
});

/** The token's used quota after the gateway settled. */
async function tokenUsed(): Promise<number> {
  await fixture.gateway.settled();
  const row = await fixture.gateway.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'good').executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

describe('one spelling, either one, is the same request', () => {
  it('countTokens: the snake_case wrapper is counted as the camelCase one', async () => {
    const wrapped = { contents: [{ role: 'user', parts: [{ text: 'How many tokens is this sentence?' }] }] };
    const camel = await send(fixture, countTokens, { body: JSON.stringify({ generateContentRequest: { model: `models/${m.gemini}`, ...wrapped } }) });
    const snake = await send(fixture, countTokens, { body: JSON.stringify({ generate_content_request: { model: `models/${m.gemini}`, ...wrapped } }) });
    expect(camel.status, camel.text).toBe(200);
    expect(snake.status, snake.text).toBe(200);
    expect(snake.body).toEqual(camel.body);
    expect(camel.body.totalTokens).toBeGreaterThan(0);
  });

  it('embedContent: an inline_data part is charged as the inlineData one (media, not nothing), and relayed as sent', async () => {
    const camelBody = { content: { parts: [{ text: 'hello' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] } };
    const snakeBody = { content: { parts: [{ text: 'hello' }, { inline_data: png }] } };
    const textBody = { content: { parts: [{ text: 'hello' }] } };
    const charged: number[] = [];
    for (const body of [camelBody, snakeBody, textBody]) {
      const before = await tokenUsed();
      const calls = fixture.scripted.requests.length;
      const sent = await send(fixture, embedContent, { body: JSON.stringify(body) });
      expect(sent.status, sent.text).toBe(200);
      expect(fixture.scripted.requests.slice(calls).map((request) => request.body)).toEqual([body]);
      charged.push((await tokenUsed()) - before);
    }
    const [camel, snake, text] = charged;
    expect(snake).toBe(camel);
    expect(snake).toBeGreaterThan(text!);
  });

  it('batchEmbedContents: task_type alone is served', async () => {
    const calls = fixture.scripted.requests.length;
    const answer = await send(fixture, batchEmbedContents, { body: JSON.stringify({ requests: [{ model: `models/${m.gemEmbed}`, content, task_type: 'RETRIEVAL_QUERY' }] }) });
    expect(answer.status, answer.text).toBe(200);
    expect(fixture.scripted.requests.length - calls).toBe(1);
  });
});

describe('@google/genai', () => {
  const sdk = () => new GoogleGenAI({ apiKey: keys.good, httpOptions: { baseUrl: fixture.url } });

  it('models.countTokens is served', async () => {
    const answer = await sdk().models.countTokens({ model: m.gemini, contents: 'How many tokens is this sentence?' });
    expect(answer.totalTokens).toBeGreaterThan(0);
  });

  it('models.embedContent (batchEmbedContents) with taskType and outputDimensionality is served and relayed as sent', async () => {
    const calls = fixture.scripted.requests.length;
    const answer = await sdk().models.embedContent({ model: m.gemEmbed, contents: 'hello', config: { taskType: 'RETRIEVAL_QUERY', outputDimensionality: 8 } });
    expect(answer.embeddings?.[0]?.values).toEqual([0.1, 0.2]);
    const relayed = fixture.scripted.requests.slice(calls);
    expect(relayed).toHaveLength(1);
    expect(relayed[0]!.path).toContain(':batchEmbedContents');
    expect(relayed[0]!.body.requests[0]).toMatchObject({ taskType: 'RETRIEVAL_QUERY', outputDimensionality: 8 });
  });

  it('models.countTokens with extraBody giving the wrapper both ways is ApiError 400 naming both', async () => {
    const wrapped = { contents: [{ role: 'user', parts: [{ text: 'How many tokens is this sentence?' }] }] };
    const error = await withoutCharge(fixture, () =>
      sdk()
        .models.countTokens({ model: m.gemini, contents: 'x', config: { httpOptions: { baseUrl: fixture.url, extraBody: { generateContentRequest: wrapped, generate_content_request: wrapped } } } })
        .then(() => undefined, (caught: unknown) => caught),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400 });
    const envelope = JSON.parse((error as ApiError).message) as { error: { status: string; message: string } };
    expect(envelope.error.status).toBe('INVALID_ARGUMENT');
    expect(envelope.error.message).toContain('"generate_content_request"');
    expect(envelope.error.message).toContain('"generateContentRequest"');
  });
});
