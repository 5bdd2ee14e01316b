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
});
