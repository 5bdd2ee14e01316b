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
