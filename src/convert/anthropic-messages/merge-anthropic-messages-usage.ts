import type { AnthropicUsage } from './anthropic-messages-wire-schema.js';

/** The input counters: cumulative over a message, so a later report never lowers them. */
const inputCounters = ['input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;

/**
 * Pure: a stream's usage so far with the next report (message_start's, then each message_delta's) laid
 * over it. A field sent replaces the earlier one (Anthropic: the counters are cumulative), `null` is no
 * report, and an input counter — the uncached input, cache reads, cache writes and their 5-minute /
 * 1-hour split — keeps the larger figure: some Anthropic-compatible relays write `input_tokens: 0` (and
 * cache zeros) in message_delta after message_start reported the input Anthropic bills regardless.
 */
export function mergeAnthropicMessagesUsage(previous: AnthropicUsage | undefined, next: AnthropicUsage): AnthropicUsage {
  const present = Object.fromEntries(Object.entries(next).filter(([, value]) => value != null)) as AnthropicUsage;
  const merged: AnthropicUsage = { ...previous, ...present };
  if (previous === undefined) return merged;
  for (const key of inputCounters) {
    const earlier = previous[key];
    if (earlier != null && earlier > (merged[key] ?? 0)) merged[key] = earlier;
  }
  if (previous.cache_creation != null && present.cache_creation != null) {
    const split = { ...previous.cache_creation, ...present.cache_creation };
    for (const key of ['ephemeral_5m_input_tokens', 'ephemeral_1h_input_tokens'] as const) {
      const earlier = previous.cache_creation[key];
      if (earlier != null && earlier > (split[key] ?? 0)) split[key] = earlier;
    }
    merged.cache_creation = split;
  }
  return merged;
}
