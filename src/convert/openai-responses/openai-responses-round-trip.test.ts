import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { createTestContext } from '../test-support/create-test-context.js';
import { formatOpenaiResponsesRequest } from './format-openai-responses-request.js';
import { formatOpenaiResponsesResponse } from './format-openai-responses-response.js';
import { parseOpenaiResponsesRequest } from './parse-openai-responses-request.js';
import { parseOpenaiResponsesResponse } from './parse-openai-responses-response.js';
import { canonicalRequests } from './test-support/canonical-requests.js';
import { canonicalResponses } from './test-support/canonical-responses.js';

function roundTripRequest(request: CanonicalRequest) {
  const formatted = formatOpenaiResponsesRequest(request, request.model, { reasoningEffortSetting: true });
  const parsed = parseOpenaiResponsesRequest(formatted.value);
  if ('invalid' in parsed) throw new Error(parsed.message);
  return { request: parsed.value, warnings: [...formatted.warnings, ...parsed.warnings] };
}

const losslessRequests = ['text', 'system-prompt', 'image-input', 'tool-call-round-trip', 'parallel-tool-calls'];

describe('Responses request round trip', () => {
  it.each(losslessRequests)('gives back the %s request unchanged and without warnings', (name) => {
    const request = canonicalRequests[name]!;
    expect(roundTripRequest(request)).toEqual({ request, warnings: [] });
  });

  it('keeps OpenAI encrypted reasoning and loses only the other vendor signature, which it warns about', () => {
    const request = canonicalRequests['thinking-with-signature']!;
    const result = roundTripRequest(request);
    const [, firstAnswer] = request.messages;
    expect(firstAnswer?.role).toBe('assistant');
    const expected = request.messages.map((message) =>
      message === firstAnswer && message.role === 'assistant' ? { ...message, content: message.content.filter((part) => part.type !== 'reasoning') } : message,
    );
    expect(result.request).toEqual({ ...request, messages: expected });
    expect(result.warnings).toHaveLength(1);
  });
});

describe('Responses response round trip', () => {
  it.each(Object.keys(canonicalResponses))('gives back the content, finish and usage of the %s response', (name) => {
    const response = canonicalResponses[name]!;
    const parsed = parseOpenaiResponsesResponse(formatOpenaiResponsesResponse(response, createTestContext()).value);
    const { raw: _raw, ...usage } = parsed.value.usage ?? {};
    const expectedContent =
      name === 'collected-openai-reasoning'
        ? // the split summary and encrypted content come back as the one reasoning item they were
          [{ type: 'reasoning', text: '**Adding two numbers**\n\nThe user asks for 2+2.', redactedData: 'gAAAAABo5LKjDoneTokenMn8b3Vc5Xz7Lk9Jh1Gf3Ds5Aq7Wp9Eo2Ri4', issuer: 'openai' }, response.content[2]]
        : response.content;
    expect({ content: parsed.value.content, unified: parsed.value.finishReason.unified, usage, created: parsed.value.created }).toEqual({
      content: expectedContent,
      unified: response.finishReason.unified,
      usage: response.usage,
      created: response.created,
    });
    expect(parsed.warnings).toEqual([]);
  });
});
