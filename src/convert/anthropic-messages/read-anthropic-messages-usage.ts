import type { NormalizedUsage } from '../../billing/normalized-usage.js';

/** The counters read from Anthropic's usage object (any other field is kept in `raw` only). */
export interface AnthropicUsageCounts {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/** The usage object Anthropic sends (message `usage`, `message_delta.usage`), as we write it to clients. */
export interface AnthropicWireUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  output_tokens_details?: { thinking_tokens: number };
}

/**
 * Anthropic's `input_tokens` counts only the uncached input: cache reads and writes come apart in
 * `cache_read_input_tokens` / `cache_creation_input_tokens` (docs: prompt caching, "Tracking cache
 * performance"), so the canonical total adds them back. `output_tokens` already includes thinking;
 * `output_tokens_details.thinking_tokens`, when sent, is the reasoning share.
 */
export function readAnthropicMessagesUsage(usage: AnthropicUsageCounts): NormalizedUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    input: { total: (usage.input_tokens ?? 0) + cacheRead + cacheWrite, cacheRead, cacheWrite },
    output: { total: usage.output_tokens ?? 0, reasoning: usage.output_tokens_details?.thinking_tokens ?? 0 },
    raw: usage,
  };
}

/** The inverse: uncached input = total − cache read − cache write; the reasoning share only when there is one. */
export function formatAnthropicMessagesUsage(usage: NormalizedUsage): AnthropicWireUsage {
  const { total, cacheRead, cacheWrite } = usage.input;
  const wire: AnthropicWireUsage = {
    input_tokens: Math.max(0, total - cacheRead - cacheWrite),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens: usage.output.total,
  };
  if (usage.output.reasoning > 0) wire.output_tokens_details = { thinking_tokens: usage.output.reasoning };
  return wire;
}
