/**
 * @anthropic-ai/sdk clients of converted channels (Chat, Responses, Gemini): text documents, request ids,
 * thinking disabled, and the usage shown when the upstream reports none (see README.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatStream, chatWhole, geminiStream, replyFor } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

describe('documents with a text source', () => {
  it('a text document reaches a Chat Completions upstream as text, not as a non-PDF file part OpenAI refuses', async () => {
    fixture.upstream.enqueue(chatWhole({ text: 'ok', usage: { input: 10, output: 1 } }));
    await fixture.anthropic.messages.create({
      model: M.chat,
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'The secret word is plum.' } }, { type: 'text', text: 'What is the secret word?' }] }],
    });
    const content = fixture.upstream.requests.at(-1)!.body.messages[0].content;
    // OpenAI Chat Completions refuses any file_data that is not application/pdf:
    // "Invalid file data … Expected a base64-encoded data URL with an application/pdf MIME type … but got unsupported MIME type 'text/…'"
    const fileParts = (Array.isArray(content) ? content : []).filter((part: any) => part.type === 'file');
    expect(fileParts.filter((part: any) => !String(part.file.file_data).startsWith('data:application/pdf'))).toEqual([]);
    expect(JSON.stringify(content)).toContain('The secret word is plum.');
  });
});

describe('request-id header (protocols.md §6: "Responses carry a request-id header"; the SDK reads it)', () => {
  it('a converted answer gives the SDK a request id', async () => {
    fixture.upstream.enqueue(chatWhole({ text: 'ok', usage: { input: 10, output: 1 } }));
    const { response, request_id: requestId } = await fixture.anthropic.messages.create({ model: M.chat, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(requestId).toBe(response.headers.get('x-request-id'));
  });

  it('a converted error gives the SDK error a requestID', async () => {
    fixture.upstream.enqueue({ status: 400, json: { error: { message: 'bad thing', type: 'invalid_request_error', param: null, code: null } } });
    const error: any = await fixture.anthropic.messages.create({ model: M.chat, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }).catch((caught) => caught);
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(error.requestID).toBeTruthy();
  });
});

describe('thinking disabled', () => {
  it('thinking {type: disabled} reaches a Gemini 2.5 upstream as thinkingBudget 0 (else it thinks, and bills thoughts)', async () => {
    fixture.upstream.enqueue(geminiStream({ text: 'ok', usage: { input: 10, output: 1 } }));
    await fixture.anthropic.messages.create({ model: M.gemini, max_tokens: 50, thinking: { type: 'disabled' }, messages: [{ role: 'user', content: 'hi' }] });
    expect(fixture.upstream.requests.at(-1)!.body.generationConfig?.thinkingConfig?.thinkingBudget).toBe(0);
  });

  it('thinking {type: disabled} reaches a Responses upstream as the least effort (gpt-5 models reason at medium effort by default)', async () => {
    fixture.upstream.enqueue(replyFor('openai-responses', { text: 'ok', usage: { input: 10, output: 1 } }, false));
    await fixture.anthropic.messages.create({ model: M.responses, max_tokens: 50, thinking: { type: 'disabled' }, messages: [{ role: 'user', content: 'hi' }] });
    expect(fixture.upstream.requests.at(-1)!.body.reasoning).toMatchObject({ effort: 'minimal' });
  });
});

describe('usage the SDK reports equals what is billed', () => {
  it.each([false, true])('chat upstream that reports no usage (stream=%s): the SDK usage matches the log row', async (stream) => {
    fixture.upstream.enqueue(stream ? chatStream({ text: 'Hello there, friend.' }) : chatWhole({ text: 'Hello there, friend.' }));
    const params = { model: M.chat, max_tokens: 50, messages: [{ role: 'user' as const, content: 'Say hello' }] };
    const message = stream ? await fixture.anthropic.messages.stream(params).finalMessage() : await fixture.anthropic.messages.create(params);
    const log = await fixture.lastLog();
    expect(log.usage_source).toBe('local');
    expect(log.output_tokens).toBeGreaterThan(0);
    expect({ input: message.usage.input_tokens, output: message.usage.output_tokens }).toEqual({ input: log.input_tokens, output: log.output_tokens });
  });
});

describe('usage shown to other styles when the upstream reports none', () => {
  it('a Responses client streaming from a Chat upstream without usage sees the usage it is billed', async () => {
    fixture.upstream.enqueue(chatStream({ text: 'Hello there, friend.' }));
    const stream = fixture.openai.responses.stream({ model: M.chat, input: 'Say hello' });
    const response = await stream.finalResponse();
    const log = await fixture.lastLog();
    expect(log.usage_source).toBe('local');
    expect(log.output_tokens).toBeGreaterThan(0);
    expect({ input: response.usage?.input_tokens, output: response.usage?.output_tokens }).toEqual({ input: log.input_tokens, output: log.output_tokens });
  });

  it('a Gemini client of a Chat upstream without usage sees the usage it is billed', async () => {
    fixture.upstream.enqueue(chatWhole({ text: 'Hello there, friend.' }));
    const response = await fixture.gemini.models.generateContent({ model: M.chat, contents: 'Say hello' });
    const log = await fixture.lastLog();
    expect(log.usage_source).toBe('local');
    expect({ input: response.usageMetadata?.promptTokenCount, output: response.usageMetadata?.candidatesTokenCount }).toEqual({ input: log.input_tokens, output: log.output_tokens });
  });
});

describe('a text document is counted as text when the upstream reports no usage', () => {
  it('the local count of a 3,000-word text document is not the flat 1,000 of an image', async () => {
    const document = Array.from({ length: 3000 }, (_, i) => `word${i % 10}`).join(' ');
    fixture.upstream.enqueue(chatWhole({ text: 'ok' }));
    await fixture.anthropic.messages.create({
      model: M.chat,
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: document } }, { type: 'text', text: 'Summarize' }] }],
    });
    const log = await fixture.lastLog();
    expect(log.usage_source).toBe('local');
    // o200k reads "word3 " as at least one token: 3,000 words are at least 3,000 prompt tokens.
    expect(log.input_tokens).toBeGreaterThanOrEqual(3000);
  });
});
