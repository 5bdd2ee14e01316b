import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import { createTestContext } from '../test-support/create-test-context.js';
import { formatOpenaiChatRequest } from './format-openai-chat-request.js';
import { formatOpenaiChatResponse } from './format-openai-chat-response.js';
import { parseOpenaiChatRequest } from './parse-openai-chat-request.js';
import { parseOpenaiChatResponse } from './parse-openai-chat-response.js';
import { readFixture } from './test-support/read-fixture.js';

/** Everything the style can carry, in the shapes the formatter writes. */
const everything: CanonicalRequest = {
  model: 'gpt-4.1-mini',
  system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Use metric units.' }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Compare these.' },
        { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' }, detail: 'high' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, mediaType: 'application/pdf', filename: 'a.pdf' },
        { type: 'file', source: { kind: 'base64', mediaType: 'audio/mpeg', data: 'SUQz' }, mediaType: 'audio/mpeg' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Two lookups at once.' },
        { type: 'text', text: 'Checking both.' },
        { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"location":"Paris"}' },
        { type: 'tool-call', id: 'call_b', name: 'get_time', arguments: '{"zone":"CET"}' },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'call_a', name: 'get_weather', content: [{ type: 'text', text: '18' }, { type: 'text', text: 'cloudy' }] },
        { type: 'tool-result', toolCallId: 'call_b', name: 'get_time', content: [{ type: 'text', text: '14:05' }] },
      ],
    },
  ],
  tools: [
    { name: 'get_weather', description: 'Weather now.', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
    { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } },
  ],
  toolChoice: { type: 'tool', name: 'get_time' },
  parallelToolCalls: true,
  maxOutputTokens: 500,
  temperature: 0.3,
  topP: 0.8,
  stopSequences: ['STOP', 'END'],
  seed: 1,
  presencePenalty: 0.5,
  frequencyPenalty: -0.5,
  responseFormat: { type: 'json_schema', name: 'comparison', schema: { type: 'object' }, strict: true },
  reasoning: { effort: 'low' },
  stream: true,
  user: 'user-9',
};

function roundTrip(request: CanonicalRequest) {
  const formatted = formatOpenaiChatRequest(request, request.model, { assistantReasoning: 'reasoning_content', reasoningEffortSetting: true });
  const parsed = parseOpenaiChatRequest(JSON.parse(JSON.stringify(formatted.value)));
  if ('invalid' in parsed) throw new Error(`refused: ${parsed.param}: ${parsed.message}`);
  return { request: parsed.value, warnings: [...formatted.warnings, ...parsed.warnings] };
}

describe('Chat Completions round trips', () => {
  it('parse(format(request)) gives back a request holding everything the style carries', () => {
    expect(roundTrip(everything)).toEqual({ request: everything, warnings: [] });
  });

  it.each(['text', 'system-prompt', 'tool-round-trip'])('parse(format(request)) gives back the %s fixture', (name) => {
    const request = readFixture(`canonical-request-${name}.json`) as CanonicalRequest;
    expect(roundTrip(request)).toEqual({ request, warnings: [] });
  });

  it('loses only what it warned about: signatures, redacted reasoning, error flags, budgets', () => {
    const request = readFixture('canonical-request-thinking-signature.json') as CanonicalRequest;
    const { request: back, warnings } = roundTrip(request);
    expect(back.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: 'The user asks for 2+2. That is 4.' }, { type: 'text', text: '2 + 2 = 4.' }] });
    expect(warnings).toHaveLength(5);
  });

  it.each(['text', 'tool-call', 'parallel-tool-calls', 'max-tokens', 'cache-usage', 'thinking-signature'])(
    'parseResponse(formatResponse(response)) gives back the %s response',
    (name) => {
      const response = readFixture(`canonical-response-${name}.json`) as CanonicalResponse;
      const formatted = formatOpenaiChatResponse(response, createTestContext(response.model));
      const { value: back } = parseOpenaiChatResponse(JSON.parse(JSON.stringify(formatted.value)));
      const withoutSignatures = response.content.map((part) => (part.type === 'reasoning' ? { type: 'reasoning', text: part.text } : part));
      expect(back).toEqual({
        ...response,
        content: withoutSignatures,
        // The raw value is now the Chat Completions one; the wire usage object is kept beside the numbers.
        finishReason: { unified: response.finishReason.unified, raw: response.finishReason.unified },
        usage: { ...response.usage, raw: formatted.value.usage },
      });
    },
  );
});
