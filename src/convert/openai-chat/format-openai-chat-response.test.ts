import { describe, expect, it } from 'vitest';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import { createTestContext } from '../test-support/create-test-context.js';
import { expectGolden, toPrettyJson } from '../test-support/expect-golden.js';
import { formatOpenaiChatResponse } from './format-openai-chat-response.js';
import { readFixture } from './test-support/read-fixture.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

const cases = ['text', 'tool-call', 'parallel-tool-calls', 'thinking-signature', 'max-tokens', 'cache-usage', 'no-id-refusal'];

describe('formatOpenaiChatResponse', () => {
  it.each(cases)('formats the %s response as its golden file says', (name) => {
    const response = readFixture(`canonical-response-${name}.json`) as CanonicalResponse;
    expectGolden(goldenFolder, `format-response-${name}.json`, toPrettyJson(formatOpenaiChatResponse(response, createTestContext('client-model'))));
  });

  it('warns when an upstream finish reason has no Chat Completions value', () => {
    const response = readFixture('canonical-response-text.json') as CanonicalResponse;
    const { value, warnings } = formatOpenaiChatResponse({ ...response, finishReason: { unified: 'other', raw: 'pause_turn' } }, createTestContext());
    expect(value.choices).toMatchObject([{ finish_reason: 'stop' }]);
    expect(warnings).toEqual(['finish reason other (raw "pause_turn") has no Chat Completions value: sent as "stop"']);
  });
});

describe('formatOpenaiChatResponse refusals', () => {
  it('writes a refusal (a text part marked refusal) to message.refusal, with content null', () => {
    const response: CanonicalResponse = {
      id: 'resp_1', model: 'm', created: 1,
      content: [{ type: 'text', text: "I'm sorry, I can't help with that.", refusal: true }],
      finishReason: { unified: 'stop', raw: 'completed' },
      usage: undefined,
    };
    const message = (formatOpenaiChatResponse(response, createTestContext()).value.choices as { message: Record<string, unknown> }[])[0]?.message;
    expect(message).toMatchObject({ content: null, refusal: "I'm sorry, I can't help with that." });
  });
});

describe('formatOpenaiChatResponse thought signatures of a Gemini upstream', () => {
  const response: CanonicalResponse = {
    id: 'r1', model: 'm', created: 1,
    content: [
      { type: 'reasoning', text: 'Think.', signature: 'GSIG1' },
      { type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{}' },
      { type: 'tool-call', id: 'c2', name: 'get_time', arguments: '{}' },
    ],
    finishReason: { unified: 'tool_calls', raw: 'STOP' },
    usage: undefined,
  };
  const toolCalls = (value: Record<string, unknown>) => (value.choices as { message: { tool_calls: Record<string, unknown>[] } }[])[0]!.message.tool_calls;

  it("writes the signature on the call that follows it, as Google's OpenAI-compatible endpoint does", () => {
    const { value, warnings } = formatOpenaiChatResponse(response, { ...createTestContext(), thoughtSignaturesOnToolCalls: true });
    expect(toolCalls(value)).toEqual([
      { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' }, extra_content: { google: { thought_signature: 'GSIG1' } } },
      { id: 'c2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
    expect(warnings).toEqual([]);
  });

  it('drops it, with a warning, for another upstream, or when no call follows it', () => {
    const other = formatOpenaiChatResponse(response, createTestContext());
    expect(toolCalls(other.value)[0]).not.toHaveProperty('extra_content');
    expect(other.warnings).toEqual(['a reasoning signature cannot be expressed in Chat Completions; dropped']);
    const beforeText = formatOpenaiChatResponse({ ...response, content: [response.content[0]!, { type: 'text', text: 'Sunny.' }] }, { ...createTestContext(), thoughtSignaturesOnToolCalls: true });
    expect(beforeText.warnings).toEqual(['a reasoning signature cannot be expressed in Chat Completions; dropped']);
  });
});
