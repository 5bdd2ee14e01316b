import { describe, expect, it } from 'vitest';
import { countWebSearchCalls, readOpenaiResponsesUsage, withWebSearches } from './read-openai-responses-usage.js';

describe('countWebSearchCalls', () => {
  it('counts the web_search_call items of an output, whatever else it holds', () => {
    expect(countWebSearchCalls([{ type: 'web_search_call' }, { type: 'message' }, { type: 'web_search_call' }, null, 'x'])).toBe(2);
    expect(countWebSearchCalls(undefined)).toBe(0);
    expect(countWebSearchCalls(null)).toBe(0);
  });

  it('adds the searches to a usage only when there are some', () => {
    const usage = () => readOpenaiResponsesUsage({ input_tokens: 10, output_tokens: 2 })!;
    expect(withWebSearches(usage(), 2).webSearches).toBe(2);
    expect(withWebSearches(usage(), 0)).not.toHaveProperty('webSearches');
  });
});
