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
