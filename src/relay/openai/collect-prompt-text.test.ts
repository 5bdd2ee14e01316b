import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { estimatePromptTokens } from '../estimate-prompt-tokens.js';
import { countTextTokens } from '../count-tokens.js';
import { collectChatPromptText, collectInputText } from './collect-prompt-text.js';

describe('collectInputText', () => {
  it('keeps each input of an array apart, so that its count is the sum of theirs', async () => {
    const prompts = ['first prompt', 'second prompt', 'third'];
    expect(collectInputText(prompts)).toEqual({ texts: prompts, extraTokens: 0, imageTokens: 0 });
    const exact = (await Promise.all(prompts.map(countTextTokens))).reduce((sum, count) => sum + count, 0);
    expect(await estimatePromptTokens(collectInputText(prompts)).countPromptTokens()).toBe(exact);
  });

  it('counts token ids as one token each, flat or batched', () => {
    expect(collectInputText([1, 2, 3, 4, 5, 6])).toEqual({ texts: [], extraTokens: 6, imageTokens: 0 });
    expect(collectInputText([[1, 2], [3]])).toEqual({ texts: [], extraTokens: 3, imageTokens: 0 });
  });

  it('reads text parts and several values (rerank: the query, then the documents)', () => {
    expect(collectInputText('query', ['doc one', { text: 'doc two' }])).toEqual({ texts: ['query', 'doc one', 'doc two'], extraTokens: 0, imageTokens: 0 });
  });

  it('counts an image input at the flat per-image estimate: Jina multimodal, url forms, moderations parts', () => {
    expect(collectInputText([{ type: 'text', text: 'a cat' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }])).toEqual({ texts: ['a cat'], extraTokens: 0, imageTokens: 1000 });
    expect(collectInputText([{ image: 'https://example.com/cat.png' }, { url: 'https://example.com/dog.png' }, { image_url: 'https://example.com/cow.png' }])).toEqual({ texts: [], extraTokens: 0, imageTokens: 3000 });
    expect(collectInputText('', [{ image: 'https://example.com/a.png' }, { text: 'a dog' }])).toEqual({ texts: ['', 'a dog'], extraTokens: 0, imageTokens: 1000 });
    expect(estimatePromptTokens(collectInputText([{ image: 'https://example.com/cat.png' }])).estimatedPromptTokens).toBe(1000);
  });

  it('counts another object as its JSON text, never as nothing', () => {
    expect(collectInputText([{ title: 'A doc', body: 'its words' }])).toEqual({ texts: ['{"title":"A doc","body":"its words"}'], extraTokens: 0, imageTokens: 0 });
  });
});

describe('collectChatPromptText', () => {
  it('reads the definitions the model reads: tools, legacy functions and calls, a response_format JSON schema', () => {
    const schema = { name: 'form', strict: true, schema: { type: 'object', properties: { city: { type: 'string' } } } };
    const functions = [{ name: 'lookup', parameters: { type: 'object' } }];
    const functionCall = { name: 'lookup', arguments: '{"q":"x"}' };
    const { texts } = collectChatPromptText({
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, function_call: functionCall }],
      functions,
      response_format: { type: 'json_schema', json_schema: schema },
    });
    expect(texts).toEqual([['hi', JSON.stringify(functionCall), JSON.stringify(functions), JSON.stringify(schema)].join('\n')]);
    expect(collectChatPromptText({ messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_object' } }).texts).toEqual(['hi']);
  });

  it("reads an earlier turn's replayed reasoning: reasoning_content (DeepSeek), else reasoning (OpenRouter)", () => {
    const call = [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } }];
    const turn = (fields: Record<string, unknown>) => collectChatPromptText({ messages: [{ role: 'assistant', content: null, tool_calls: call, ...fields }] }).texts;
    expect(turn({ reasoning_content: 'I should call the tool.' })).toEqual([['I should call the tool.', JSON.stringify(call)].join('\n')]);
    expect(turn({ reasoning: 'Via OpenRouter.' })).toEqual([['Via OpenRouter.', JSON.stringify(call)].join('\n')]);
    expect(turn({ reasoning_content: 'Once.', reasoning: 'Once.' })).toEqual([['Once.', JSON.stringify(call)].join('\n')]);
  });

  it("counts a Gemini thought signature on a tool call (extra_content) at a token per 4 characters, as the other styles' signatures, apart from the calls' text", async () => {
    const signature = randomBytes(30_000).toString('base64');
    const call = { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' }, extra_content: { google: { thought_signature: signature } } };
    const plainText = collectChatPromptText({ messages: [{ role: 'assistant', content: null, tool_calls: [{ ...call, extra_content: undefined }] }] });
    const signedText = collectChatPromptText({ messages: [{ role: 'assistant', content: null, tool_calls: [call] }] });
    expect(signedText.texts).toEqual(plainText.texts);
    expect(signedText.opaqueTokens).toBe(signature.length / 4);
    const [plain, signed] = [estimatePromptTokens(plainText), estimatePromptTokens(signedText)];
    expect(signed.estimatedPromptTokens - plain.estimatedPromptTokens).toBe(signature.length / 4);
    expect((await signed.countPromptTokens()) - (await plain.countPromptTokens())).toBe(signature.length / 4);
  });
});
