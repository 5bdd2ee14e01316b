import { describe, expect, it } from 'vitest';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import { expectGolden } from '../test-support/expect-golden.js';
import { formatGeminiResponse } from './format-gemini-response.js';
import { fixedContext } from './test-support/fixed-context.js';
import { readFixtureJson } from './test-support/read-recorded-chunks.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

describe('formatGeminiResponse', () => {
  for (const name of ['thinking-tool-call', 'max-tokens']) {
    it(`formats the canonical ${name} response into the golden Gemini body`, () => {
      const response = readFixtureJson(`canonical-response-${name}.json`) as CanonicalResponse;
      const actual = `${JSON.stringify(formatGeminiResponse(response, fixedContext('gemini-2.5-pro')), null, 2)}\n`;
      expectGolden(goldenFolder, `format-response-${name}.json`, actual);
    });
  }

  it('makes a response id when the canonical response has none', () => {
    const response = readFixtureJson('canonical-response-max-tokens.json') as CanonicalResponse;
    expect(formatGeminiResponse({ ...response, id: '' }, fixedContext()).value.responseId).toBe('_1');
  });
});

describe('formatGeminiResponse for a client that did not ask for thoughts', () => {
  it('leaves the thought text out and keeps its signature on the part that follows', () => {
    const response: CanonicalResponse = {
      id: 'r1', model: 'm', created: 0,
      content: [{ type: 'reasoning', text: 'Let me think', signature: 'sig-1' }, { type: 'text', text: 'Answer' }],
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: undefined,
    };
    const { value } = formatGeminiResponse(response, { ...fixedContext(), omitReasoningText: true });
    expect((value.candidates as { content: { parts: unknown[] } }[])[0]?.content.parts).toEqual([{ text: 'Answer', thoughtSignature: 'sig-1' }]);
  });
});
