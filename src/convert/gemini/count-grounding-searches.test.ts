import { describe, expect, it } from 'vitest';
import { countGroundingSearches, groundingQueriesOf } from './count-grounding-searches.js';

describe('groundingQueriesOf', () => {
  it('reads the non-empty queries, in either spelling, and nothing from anything else', () => {
    expect(groundingQueriesOf({ webSearchQueries: ['', 'a', ' ', 'b', 3] })).toEqual(['a', 'b']);
    expect(groundingQueriesOf({ web_search_queries: ['c'] })).toEqual(['c']);
    expect(groundingQueriesOf({ groundingChunks: [] })).toEqual([]);
    expect(groundingQueriesOf('x')).toEqual([]);
  });
});

describe('countGroundingSearches', () => {
  it('bills Gemini 3 and later per unique query, Gemini 2.x and older once per grounded prompt', () => {
    const three = new Set(['a', 'b', 'c']);
    expect(countGroundingSearches(three, 'gemini-3-flash-preview')).toBe(3);
    expect(countGroundingSearches(three, 'gemini-3.1-pro')).toBe(3);
    expect(countGroundingSearches(three, 'gemini-2.5-flash')).toBe(1);
    expect(countGroundingSearches(three, 'gemini-1.5-pro-002')).toBe(1);
    expect(countGroundingSearches(three, undefined)).toBe(3);
    expect(countGroundingSearches(new Set(), 'gemini-2.5-flash')).toBe(0);
  });
});
