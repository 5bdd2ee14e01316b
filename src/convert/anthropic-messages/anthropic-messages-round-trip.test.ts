import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import { formatAnthropicMessagesRequest } from './format-anthropic-messages-request.js';
import { formatAnthropicMessagesResponse } from './format-anthropic-messages-response.js';
import { parseAnthropicMessagesRequest } from './parse-anthropic-messages-request.js';
import { parseAnthropicMessagesResponse } from './parse-anthropic-messages-response.js';
import { createTestConversionContext } from './test-support/create-test-conversion-context.js';

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const weatherTool = { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const signature = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds';
const request = (overrides: Partial<CanonicalRequest>): CanonicalRequest => ({
  model: 'claude-sonnet-4-5', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], tools: [], maxOutputTokens: 1024, stream: false, ...overrides,
});

/**
 * Requests as canonical as the Anthropic wire can hold them: tool-call arguments in compact JSON (the wire
 * carries objects), results of one turn in one tool message, tool results named after their call.
 */
const requests: Record<string, CanonicalRequest> = {
  'text with a system prompt and sampling settings': request({ system: [{ type: 'text', text: 'Be brief.' }], temperature: 0.4, topP: 0.9, topK: 20, stopSequences: ['END'] }),
  'several system parts, images by url and base64, user id, streaming': request({
    system: [{ type: 'text', text: 'One.' }, { type: 'text', text: 'Two.' }],
    messages: [{ role: 'user', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: png } }, { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } }, { type: 'text', text: 'What is this?' }] }],
    user: 'user-1',
    stream: true,
  }),
  'a tool call round trip with a forced tool and no parallel calls': request({
    tools: [weatherTool],
    toolChoice: { type: 'tool', name: 'get_weather' },
    parallelToolCalls: false,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_1', name: 'get_weather', content: [{ type: 'text', text: 'Sunny' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: png } }], isError: true }] },
    ],
  }),
  'parallel tool calls answered in one turn with text after the results': request({
    tools: [weatherTool, { name: 'get_time', parameters: { type: 'object' } }],
    toolChoice: { type: 'required' },
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Weather and time?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }, { type: 'tool-call', id: 'call_b', name: 'get_time', arguments: '{}' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_a', name: 'get_weather', content: [{ type: 'text', text: 'Sunny' }] }, { type: 'tool-result', toolCallId: 'call_b', name: 'get_time', content: [{ type: 'text', text: '12:00' }] }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks!' }] },
    ],
  }),
  'thinking with a signature and redacted thinking': request({
    maxOutputTokens: 16000,
    reasoning: { budgetTokens: 4096, includeThoughts: true },
    tools: [weatherTool],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'I should call the tool.', signature, issuer: 'anthropic' },
          { type: 'reasoning', text: '', redactedData: 'EmwKAhgBEgy3va3pzix', issuer: 'anthropic' },
          { type: 'tool-call', id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_2', name: 'get_weather', content: [{ type: 'text', text: 'Sunny' }] }] },
    ],
  }),
  'a json_schema response format': request({ responseFormat: { type: 'json_schema', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, additionalProperties: false } } }),
};

describe('Anthropic Messages round trips', () => {
  it.each(Object.entries(requests))('parse(format(request)) gives back the request: %s', (_name, original) => {
    const formatted = formatAnthropicMessagesRequest(original, original.model);
    expect(formatted.warnings).toEqual([]);
    const parsed = parseAnthropicMessagesRequest(JSON.parse(JSON.stringify(formatted.value)));
    expect(parsed).toEqual({ value: original, warnings: [] });
  });

  const usage = { input: { total: 9632, cacheRead: 6289, cacheWrite: 3337 }, output: { total: 59, reasoning: 18 } };
  const response = (overrides: Partial<CanonicalResponse>): CanonicalResponse => ({
    id: 'msg_1', model: 'claude-sonnet-4-5', created: 0, content: [{ type: 'text', text: 'Hello' }], finishReason: { unified: 'stop', raw: 'end_turn' }, usage, ...overrides,
  });
  const responses: Record<string, CanonicalResponse> = {
    'text with cache and reasoning usage': response({}),
    'a stop at max_tokens': response({ finishReason: { unified: 'length', raw: 'max_tokens' } }),
    'parallel tool calls': response({
      content: [{ type: 'text', text: 'Checking both.' }, { type: 'tool-call', id: 'toolu_a', name: 'get_weather', arguments: '{"city":"Paris"}' }, { type: 'tool-call', id: 'toolu_b', name: 'get_time', arguments: '{}' }],
      finishReason: { unified: 'tool_calls', raw: 'tool_use' },
    }),
    'thinking with a signature, redacted thinking, then text': response({
      content: [{ type: 'reasoning', text: 'Two plus two.', signature, issuer: 'anthropic' }, { type: 'reasoning', text: '', redactedData: 'EmwKAhgB', issuer: 'anthropic' }, { type: 'text', text: '4' }],
    }),
  };

  it.each(Object.entries(responses))('parse(format(response)) gives back the response: %s', (_name, original) => {
    const formatted = formatAnthropicMessagesResponse(original, createTestConversionContext(original.model));
    expect(formatted.warnings).toEqual([]);
    const parsed = parseAnthropicMessagesResponse(JSON.parse(JSON.stringify(formatted.value)));
    // The raw usage is the wire object; everything else comes back as it was.
    expect(parsed).toEqual({ value: { ...original, usage: { ...original.usage, raw: expect.any(Object) } }, warnings: [] });
  });
});
