import { describe, expect, it } from 'vitest';
import type { CanonicalAssistantPart } from '../../canonical/canonical-request.js';
import type { CanonicalResponse } from '../../canonical/conversion.js';
import { formatAnthropicMessagesResponse } from './format-anthropic-messages-response.js';
import { createTestConversionContext } from './test-support/create-test-conversion-context.js';

function contentOf(content: CanonicalAssistantPart[]): unknown {
  const response: CanonicalResponse = { id: 'chatcmpl-1', model: 'gpt-4o', created: 1760000000, content, finishReason: { unified: 'stop', raw: 'stop' }, usage: undefined };
  return formatAnthropicMessagesResponse(response, createTestConversionContext()).value.content;
}

describe('formatAnthropicMessagesResponse', () => {
  it('makes no block of empty or whitespace-only text (Anthropic refuses both replayed)', () => {
    const call: CanonicalAssistantPart = { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
    expect(contentOf([{ type: 'text', text: '\n\n' }, call, { type: 'text', text: '' }, { type: 'text', text: ' \t' }])).toEqual([{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }]);
  });

  it('keeps whitespace between two texts on the text after it', () => {
    expect(contentOf([{ type: 'text', text: 'One.' }, { type: 'text', text: '\n\n' }, { type: 'text', text: 'Two.' }])).toEqual([
      { type: 'text', text: 'One.' },
      { type: 'text', text: '\n\nTwo.' },
    ]);
  });
});
