import { describe, expect, it } from 'vitest';
import { formatAnthropicMessagesUsage, readAnthropicMessagesUsage } from './read-anthropic-messages-usage.js';

describe('readAnthropicMessagesUsage', () => {
  it('adds cache reads and writes to the input total, since Anthropic input_tokens excludes them', () => {
    const raw = { input_tokens: 6, cache_creation_input_tokens: 3337, cache_read_input_tokens: 6289, output_tokens: 198 };
    expect(readAnthropicMessagesUsage(raw)).toEqual({
      input: { total: 9632, cacheRead: 6289, cacheWrite: 3337 },
      output: { total: 198, reasoning: 0 },
      raw,
    });
  });

  it('reads thinking tokens as the reasoning share of the output', () => {
    const usage = readAnthropicMessagesUsage({ input_tokens: 599, output_tokens: 59, output_tokens_details: { thinking_tokens: 18 } });
    expect(usage.output).toEqual({ total: 59, reasoning: 18 });
  });

  it('reads the share of cache writes that went to the 1-hour cache, never more than the writes', () => {
    const raw = { input_tokens: 10, cache_creation_input_tokens: 3000, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 }, output_tokens: 5 };
    expect(readAnthropicMessagesUsage(raw).input).toEqual({ total: 3010, cacheRead: 0, cacheWrite: 3000, cacheWrite1h: 2000 });
    const overReported = { input_tokens: 10, cache_creation_input_tokens: 100, cache_creation: { ephemeral_1h_input_tokens: 400 }, output_tokens: 5 };
    expect(readAnthropicMessagesUsage(overReported).input.cacheWrite1h).toBe(100);
    const none = { input_tokens: 10, cache_creation_input_tokens: 100, cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 0 }, output_tokens: 5 };
    expect(readAnthropicMessagesUsage(none).input.cacheWrite1h).toBeUndefined();
  });

  it('treats absent and null counters as zero', () => {
    const usage = readAnthropicMessagesUsage({ input_tokens: 43, output_tokens: 1, cache_read_input_tokens: null });
    expect(usage.input).toEqual({ total: 43, cacheRead: 0, cacheWrite: 0 });
  });

  it('reads the web searches Anthropic ran from server_tool_use', () => {
    expect(readAnthropicMessagesUsage({ input_tokens: 10, output_tokens: 5, server_tool_use: { web_search_requests: 3 } }).webSearches).toBe(3);
    expect(readAnthropicMessagesUsage({ input_tokens: 10, output_tokens: 5, server_tool_use: { web_search_requests: 0 } }).webSearches).toBeUndefined();
    expect(readAnthropicMessagesUsage({ input_tokens: 10, output_tokens: 5 }).webSearches).toBeUndefined();
  });
});

describe('formatAnthropicMessagesUsage', () => {
  it('subtracts cache reads and writes from the input total', () => {
    const wire = formatAnthropicMessagesUsage({ input: { total: 2100, cacheRead: 1800, cacheWrite: 200 }, output: { total: 7, reasoning: 0 } });
    expect(wire).toEqual({ input_tokens: 100, cache_creation_input_tokens: 200, cache_read_input_tokens: 1800, output_tokens: 7 });
  });

  it('reports reasoning tokens in output_tokens_details', () => {
    const wire = formatAnthropicMessagesUsage({ input: { total: 30, cacheRead: 0, cacheWrite: 0 }, output: { total: 50, reasoning: 38 } });
    expect(wire.output_tokens_details).toEqual({ thinking_tokens: 38 });
  });

  it('splits the cache writes into 5-minute and 1-hour ones only when some went to the 1-hour cache', () => {
    const wire = formatAnthropicMessagesUsage({ input: { total: 2100, cacheRead: 0, cacheWrite: 2000, cacheWrite1h: 1500 }, output: { total: 7, reasoning: 0 } });
    expect(wire.cache_creation).toEqual({ ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 1500 });
    expect(formatAnthropicMessagesUsage({ input: { total: 2100, cacheRead: 0, cacheWrite: 2000 }, output: { total: 7, reasoning: 0 } })).not.toHaveProperty('cache_creation');
  });

  it('round-trips through readAnthropicMessagesUsage, the 1-hour share included', () => {
    const withHour = { input: { total: 9632, cacheRead: 6289, cacheWrite: 3337, cacheWrite1h: 1000 }, output: { total: 59, reasoning: 18 } };
    const { raw: _ignored, ...again } = readAnthropicMessagesUsage(formatAnthropicMessagesUsage(withHour));
    expect(again).toEqual(withHour);
  });

  it('round-trips through readAnthropicMessagesUsage', () => {
    const usage = { input: { total: 9632, cacheRead: 6289, cacheWrite: 3337 }, output: { total: 59, reasoning: 18 } };
    const { raw: _raw, ...back } = readAnthropicMessagesUsage(formatAnthropicMessagesUsage(usage));
    expect(back).toEqual(usage);
  });

});
