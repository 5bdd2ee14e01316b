import { describe, expect, it } from 'vitest';
import { mergeAnthropicMessagesUsage } from './merge-anthropic-messages-usage.js';

describe('mergeAnthropicMessagesUsage', () => {
  it('takes the first report as it is, without its nulls', () => {
    expect(mergeAnthropicMessagesUsage(undefined, { input_tokens: 5, output_tokens: 1, cache_read_input_tokens: null })).toEqual({ input_tokens: 5, output_tokens: 1 });
  });

  it('lets a later report replace the output and raise the input (cumulative counters)', () => {
    const merged = mergeAnthropicMessagesUsage({ input_tokens: 43, output_tokens: 1 }, { input_tokens: 61, cache_read_input_tokens: 2000, output_tokens: 20 });
    expect(merged).toEqual({ input_tokens: 61, cache_read_input_tokens: 2000, output_tokens: 20 });
  });

  it('keeps the earlier input counters when a later report writes zeros over them', () => {
    const start = { input_tokens: 5000, cache_read_input_tokens: 2000, cache_creation_input_tokens: 1000, output_tokens: 1 };
    expect(mergeAnthropicMessagesUsage(start, { input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 20 })).toEqual({ ...start, output_tokens: 20 });
  });

  it('takes a later split of the input as it is, zeros included (never both reports)', () => {
    expect(mergeAnthropicMessagesUsage({ input_tokens: 1000, output_tokens: 1 }, { input_tokens: 0, cache_read_input_tokens: 1000, output_tokens: 5 })).toEqual({ input_tokens: 0, cache_read_input_tokens: 1000, output_tokens: 5 });
    const start = { input_tokens: 5000, output_tokens: 1 };
    expect(mergeAnthropicMessagesUsage(start, { input_tokens: 3000, cache_read_input_tokens: 2000, output_tokens: 20 })).toEqual({ input_tokens: 3000, cache_read_input_tokens: 2000, output_tokens: 20 });
  });

  it('keeps a null field as no report', () => {
    const start = { input_tokens: 5000, output_tokens: 1 };
    expect(mergeAnthropicMessagesUsage(start, { input_tokens: null, output_tokens: 7 })).toEqual({ input_tokens: 5000, output_tokens: 7 });
  });

  it("keeps the cache writes' 5-minute / 1-hour split when a later report writes it as zeros, and takes a new split as it is", () => {
    const start = { cache_creation_input_tokens: 3000, cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 } };
    expect(mergeAnthropicMessagesUsage(start, { cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } }).cache_creation).toEqual(start.cache_creation);
    expect(mergeAnthropicMessagesUsage(start, { cache_creation: { ephemeral_5m_input_tokens: 3000, ephemeral_1h_input_tokens: 0 } }).cache_creation).toEqual({ ephemeral_5m_input_tokens: 3000, ephemeral_1h_input_tokens: 0 });
    expect(mergeAnthropicMessagesUsage(start, { cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 2500 } }).cache_creation).toEqual({ ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 2500 });
    expect(mergeAnthropicMessagesUsage(start, { output_tokens: 3 }).cache_creation).toEqual(start.cache_creation);
  });

  it('does not change the report it was given', () => {
    const start = { input_tokens: 5000, cache_creation: { ephemeral_1h_input_tokens: 10 } };
    const next = { input_tokens: 0, cache_creation: { ephemeral_1h_input_tokens: 0 } };
    mergeAnthropicMessagesUsage(start, next);
    expect({ start, next }).toEqual({ start: { input_tokens: 5000, cache_creation: { ephemeral_1h_input_tokens: 10 } }, next: { input_tokens: 0, cache_creation: { ephemeral_1h_input_tokens: 0 } } });
  });
});
