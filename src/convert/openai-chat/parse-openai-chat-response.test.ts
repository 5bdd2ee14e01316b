import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGolden, toPrettyJson } from '../test-support/expect-golden.js';
import { parseOpenaiChatResponse } from './parse-openai-chat-response.js';
import { readFixture, recordedDirectory } from './test-support/read-fixture.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

const fixtureCases = ['tool-call', 'parallel-tool-calls', 'length-cached', 'deepseek-reasoning'];

describe('parseOpenaiChatResponse', () => {
  it('parses the recorded OpenAI text response as its golden file says', () => {
    const body: unknown = JSON.parse(readFileSync(join(recordedDirectory, 'openai-text.json'), 'utf8'));
    expectGolden(goldenFolder, 'parse-response-openai-text.json', toPrettyJson(parseOpenaiChatResponse(body)));
  });

  it.each(fixtureCases)('parses the %s response as its golden file says', (name) => {
    expectGolden(goldenFolder, `parse-response-${name}.json`, toPrettyJson(parseOpenaiChatResponse(readFixture(`response-${name}.json`))));
  });

  it('counts DeepSeek cache hits as cache reads', () => {
    const body = { id: 'x', created: 1, model: 'deepseek-chat', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 339, completion_tokens: 83, prompt_cache_hit_tokens: 320, prompt_cache_miss_tokens: 19 } };
    expect(parseOpenaiChatResponse(body).value.usage).toMatchObject({ input: { total: 339, cacheRead: 320, cacheWrite: 0 }, output: { total: 83, reasoning: 0 } });
  });

  it('carries a refusal as text marked refusal', () => {
    const body = { id: 'x', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'I cannot help.' }, finish_reason: 'stop' }], usage: null };
    const { value, warnings } = parseOpenaiChatResponse(body);
    expect(value.content).toEqual([{ type: 'text', text: 'I cannot help.', refusal: true }]);
    expect(warnings).toEqual(['the upstream reported no usage']);
  });

  it('keeps the first choice and warns about the others, and about citations', () => {
    const choice = (index: number) => ({ index, message: { role: 'assistant', content: `answer ${index}`, annotations: [{ type: 'url_citation' }] }, finish_reason: 'stop' });
    const { value, warnings } = parseOpenaiChatResponse({ id: 'x', created: 1, model: 'm', choices: [choice(0), choice(1)], usage: { prompt_tokens: 1, completion_tokens: 2 } });
    expect(value.content).toEqual([{ type: 'text', text: 'answer 0' }]);
    expect(warnings).toEqual(['1 further choice(s) dropped: only one is carried', '1 annotation(s) (citations) cannot be carried; dropped']);
  });

  it('maps DeepSeek insufficient_system_resource to error, keeping the raw value', () => {
    const body = { id: 'x', created: 1, model: 'deepseek-chat', choices: [{ index: 0, message: { content: 'par' }, finish_reason: 'insufficient_system_resource' }], usage: { prompt_tokens: 1, completion_tokens: 1 } };
    expect(parseOpenaiChatResponse(body).value.finishReason).toEqual({ unified: 'error', raw: 'insufficient_system_resource' });
  });

  it('throws on a body that is no chat completion: an upstream fault, not a client mistake', () => {
    expect(() => parseOpenaiChatResponse({ error: { message: 'nope' } })).toThrow(/not a chat completion/);
  });
});
