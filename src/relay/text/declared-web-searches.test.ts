import { describe, expect, it } from 'vitest';
import { declaredWebSearches, defaultReservedWebSearches } from './declared-web-searches.js';

describe('declaredWebSearches', () => {
  it("reads Anthropic's max_uses and Responses' max_tool_calls, the default without a cap, 0 without a search tool", () => {
    expect(declaredWebSearches('anthropic-messages', { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] })).toBe(3);
    expect(declaredWebSearches('anthropic-messages', { tools: [{ type: 'web_search_20250305', name: 'web_search' }] })).toBe(defaultReservedWebSearches);
    expect(declaredWebSearches('openai-responses', { tools: [{ type: 'web_search' }], max_tool_calls: 2 })).toBe(2);
    expect(declaredWebSearches('openai-responses', { tools: [{ type: 'web_search_preview' }] })).toBe(defaultReservedWebSearches);
    expect(declaredWebSearches('openai-responses', { tools: [{ type: 'function', name: 'f' }] })).toBe(0);
    expect(declaredWebSearches('openai-chat', { tools: [{ type: 'web_search' }] })).toBe(0);
    expect(declaredWebSearches('anthropic-messages', {})).toBe(0);
  });

  it("counts one search for a Chat request's web_search_options (OpenAI bills each search-preview call one)", () => {
    expect(declaredWebSearches('openai-chat', { web_search_options: {} })).toBe(1);
    expect(declaredWebSearches('openai-chat', { web_search_options: { search_context_size: 'high' } })).toBe(1);
    expect(declaredWebSearches('openai-chat', { web_search_options: null })).toBe(0);
    expect(declaredWebSearches('openai-chat', {})).toBe(0);
  });

  it('reserves Gemini grounding as Google bills it: once per prompt for 2.x models, the default number of queries for later ones', () => {
    expect(declaredWebSearches('gemini', { tools: [{ googleSearch: {} }] }, 'gemini-2.5-flash')).toBe(1);
    expect(declaredWebSearches('gemini', { tools: [{ google_search: {} }] }, 'gemini-3-pro-preview')).toBe(defaultReservedWebSearches);
    expect(declaredWebSearches('gemini', { tools: [{ functionDeclarations: [] }] }, 'gemini-3-pro-preview')).toBe(0);
  });
});
