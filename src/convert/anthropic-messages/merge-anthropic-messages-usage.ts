import type { AnthropicUsage } from './anthropic-messages-wire-schema.js';

/** The input counters, which a relay's message_delta may write as zeros after message_start reported them. */
const inputCounters = ['input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;
const cacheWriteShares = ['ephemeral_5m_input_tokens', 'ephemeral_1h_input_tokens'] as const;

/**
 * Pure: a stream's usage so far with the next report (message_start's, then each message_delta's) laid
 * over it. A field sent replaces the earlier one (Anthropic: the counters are cumulative) and `null` is no
 * report — except that a report whose input counters (uncached input, cache reads, cache writes) are all 0
 * keeps the earlier ones when those were above 0: some Anthropic-compatible relays write zeros there after
 * message_start reported the input Anthropic bills regardless. The input counters are judged together, so
 * a relay that splits its input differently later (all of it as cache reads: `input_tokens: 0,
 * cache_read_input_tokens: 1000`) is billed the split, never both reports. The same for the cache writes'
 * 5-minute / 1-hour split.
 */
export function mergeAnthropicMessagesUsage(previous: AnthropicUsage | undefined, next: AnthropicUsage): AnthropicUsage {
  const present = Object.fromEntries(Object.entries(next).filter(([, value]) => value != null)) as AnthropicUsage;
  const merged: AnthropicUsage = { ...previous, ...present };
  if (previous === undefined) return merged;
  if (writesZerosOver(previous, present, inputCounters)) for (const key of inputCounters) if (previous[key] != null) merged[key] = previous[key];
  if (previous.cache_creation != null && present.cache_creation != null) {
    merged.cache_creation = writesZerosOver(previous.cache_creation, present.cache_creation, cacheWriteShares) ? previous.cache_creation : { ...previous.cache_creation, ...present.cache_creation };
  }
  return merged;
}

/** Whether `next` sends only zeros for `keys` (at least one of them) where `earlier` had a figure above 0. */
function writesZerosOver<K extends string>(earlier: Partial<Record<K, number | null>>, next: Partial<Record<K, number | null>>, keys: readonly K[]): boolean {
  const sent = keys.filter((key) => next[key] != null);
  return sent.length > 0 && sent.every((key) => next[key] === 0) && keys.some((key) => (earlier[key] ?? 0) > 0);
}
