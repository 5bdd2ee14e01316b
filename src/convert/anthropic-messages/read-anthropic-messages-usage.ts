import type { NormalizedUsage } from '../../billing/normalized-usage.js';

/** The counters read from Anthropic's usage object (any other field is kept in `raw` only). */
export interface AnthropicUsageCounts {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** How the cache writes split between the 5-minute and the 1-hour cache (message_start and whole messages only). */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
  /** The server tools the upstream ran (cumulative in `message_delta`): each web search is billed. */
  server_tool_use?: { web_search_requests?: number | null } | null;
}

/** The usage object Anthropic sends (message `usage`, `message_delta.usage`), as we write it to clients. */
export interface AnthropicWireUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens_details?: { thinking_tokens: number };
}

/**
 * Anthropic's `input_tokens` counts only the uncached input: cache reads and writes come apart in
 * `cache_read_input_tokens` / `cache_creation_input_tokens` (docs: prompt caching, "Tracking cache
 * performance"), so the canonical total adds them back. `cache_creation.ephemeral_1h_input_tokens` is the
 * share of the writes that went to the 1-hour cache (never more than the writes). `output_tokens` already
 * includes thinking; `output_tokens_details.thinking_tokens`, when sent, is the reasoning share.
 * `server_tool_use.web_search_requests` counts the web searches Anthropic ran (and bills each).
 */
export function readAnthropicMessagesUsage(usage: AnthropicUsageCounts): NormalizedUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const normalized: NormalizedUsage = {
    input: { total: (usage.input_tokens ?? 0) + cacheRead + cacheWrite, cacheRead, cacheWrite },
    output: { total: usage.output_tokens ?? 0, reasoning: usage.output_tokens_details?.thinking_tokens ?? 0 },
    raw: usage,
  };
  const cacheWrite1h = Math.min(usage.cache_creation?.ephemeral_1h_input_tokens ?? 0, cacheWrite);
  if (cacheWrite1h > 0) normalized.input.cacheWrite1h = cacheWrite1h;
  const searches = usage.server_tool_use?.web_search_requests ?? 0;
  if (Number.isSafeInteger(searches) && searches > 0) normalized.webSearches = searches;
  return normalized;
}

/**
 * The inverse: uncached input = total − cache read − cache write; the 5-minute / 1-hour split only when
 * some writes went to the 1-hour cache; the reasoning share only when there is one.
 */
export function formatAnthropicMessagesUsage(usage: NormalizedUsage): AnthropicWireUsage {
  const { total, cacheRead, cacheWrite } = usage.input;
  const wire: AnthropicWireUsage = {
    input_tokens: Math.max(0, total - cacheRead - cacheWrite),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens: usage.output.total,
  };
  const cacheWrite1h = Math.min(usage.input.cacheWrite1h ?? 0, cacheWrite);
  if (cacheWrite1h > 0) wire.cache_creation = { ephemeral_5m_input_tokens: cacheWrite - cacheWrite1h, ephemeral_1h_input_tokens: cacheWrite1h };
  if (usage.output.reasoning > 0) wire.output_tokens_details = { thinking_tokens: usage.output.reasoning };
  return wire;
}
