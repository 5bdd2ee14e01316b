import type { NormalizedUsage, UsageSource } from '../billing/normalized-usage.js';
import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import type { LogRow } from '../storage/logs-repository.js';
import type { AttemptRecord } from './run-failover.js';

export interface RelayLogFacts {
  requestId: string;
  startedAt: number;
  finishedAt: number;
  firstTokenAt: number | undefined;
  caller: AuthenticatedCaller;
  channelId: number | undefined;
  model: string;
  upstreamModel: string | undefined;
  style: string;
  path: string;
  stream: boolean;
  status: number;
  usage: NormalizedUsage;
  usageSource: UsageSource;
  charged: number;
  attempts: AttemptRecord[];
  warnings: string[];
  ip: string;
  error: string | undefined;
}

/** Pure: one log row per relay request (issue #4 "Logs"). */
export function buildLogRow(facts: RelayLogFacts): LogRow {
  return {
    request_id: facts.requestId,
    created_at: facts.startedAt,
    user_id: facts.caller.user.id,
    token_id: facts.caller.token.id,
    token_name: facts.caller.token.name,
    channel_id: facts.channelId ?? null,
    model: facts.model,
    upstream_model: facts.upstreamModel ?? null,
    style: facts.style,
    path: facts.path,
    is_stream: facts.stream ? 1 : 0,
    status: facts.status,
    input_tokens: facts.usage.input.total,
    cache_read_tokens: facts.usage.input.cacheRead,
    cache_write_tokens: facts.usage.input.cacheWrite,
    cache_write_1h_tokens: facts.usage.input.cacheWrite1h ?? 0,
    audio_input_tokens: facts.usage.input.audio ?? 0,
    output_tokens: facts.usage.output.total,
    reasoning_tokens: facts.usage.output.reasoning,
    audio_output_tokens: facts.usage.output.audio ?? 0,
    image_input_tokens: facts.usage.input.image ?? 0,
    image_output_tokens: facts.usage.output.image ?? 0,
    web_search_calls: facts.usage.webSearches ?? 0,
    quota: facts.charged,
    latency_ms: Math.max(0, facts.finishedAt - facts.startedAt),
    first_token_ms: facts.firstTokenAt === undefined ? null : Math.max(0, facts.firstTokenAt - facts.startedAt),
    attempts: attemptsJson(facts.attempts),
    // Each attempt's converter adds its warnings: a retried request would repeat them.
    warnings: facts.warnings.length === 0 ? '[]' : JSON.stringify([...new Set(facts.warnings)]),
    usage_source: facts.usageSource,
    ip: facts.ip.slice(0, 64),
    error: facts.error === undefined ? null : facts.error.slice(0, 1000),
  };
}

/**
 * `JSON.stringify(attempts)`, written out: the same text for records of the shape run-failover makes (its
 * key order; `error` only when there is one). JSON.stringify looks for a toJSON method on every object and
 * cost ~5k instructions per request for the usual single attempt; anything unusual still goes through it.
 */
export function attemptsJson(attempts: AttemptRecord[]): string {
  let json = '[';
  for (let index = 0; index < attempts.length; index += 1) {
    const { channel_id: channelId, status, latency_ms: latencyMs, error } = attempts[index] as AttemptRecord;
    if (!Number.isFinite(channelId) || !(status === null || Number.isFinite(status)) || !Number.isFinite(latencyMs)) return JSON.stringify(attempts);
    if (index > 0) json += ',';
    json += `{"channel_id":${channelId},"status":${status},"latency_ms":${latencyMs}`;
    if (error !== undefined) json += `,"error":${JSON.stringify(error)}`;
    json += '}';
  }
  return `${json}]`;
}
