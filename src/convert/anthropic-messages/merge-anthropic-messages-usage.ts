import type { AnthropicUsage } from './anthropic-messages-wire-schema.js';

/** The input counters, which a relay's message_delta may write as zeros after message_start reported them. */
const inputCounters = ['input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;

/**
 * Pure: a stream's usage so far with the next report (message_start's, then each message_delta's) laid
 * over it. A field sent replaces the earlier one (Anthropic: the counters are cumulative), `null` is no
 * report, and so is a 0 over an input counter already reported above 0 — the uncached input, cache reads,
 * cache writes and their 5-minute / 1-hour split: some Anthropic-compatible relays write `input_tokens: 0`
 * (and cache zeros) in message_delta after message_start reported the input Anthropic bills regardless.
 * Any other figure replaces the earlier one (a relay that splits its input into cache reads only later is
 * billed the split, not the sum of both reports).
 */
export function mergeAnthropicMessagesUsage(previous: AnthropicUsage | undefined, next: AnthropicUsage): AnthropicUsage {
  const present = Object.fromEntries(Object.entries(next).filter(([, value]) => value != null)) as AnthropicUsage;
  const merged: AnthropicUsage = { ...previous, ...present };
  if (previous === undefined) return merged;
  for (const key of inputCounters) {
    const earlier = previous[key];
    if (earlier != null && earlier > 0 && merged[key] === 0) merged[key] = earlier;
  }
  if (previous.cache_creation != null && present.cache_creation != null) {
    const split = { ...previous.cache_creation, ...present.cache_creation };
    for (const key of ['ephemeral_5m_input_tokens', 'ephemeral_1h_input_tokens'] as const) {
      const earlier = previous.cache_creation[key];
      if (earlier != null && earlier > 0 && split[key] === 0) split[key] = earlier;
    }
    merged.cache_creation = split;
  }
  return merged;
}
