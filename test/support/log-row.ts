import type { LogRow } from '../../src/storage/logs-repository.js';

/** A complete request log row (a 200 answer of gpt-4o on 2026-01-01), with `overrides` on top. */
export function logRow(overrides: Partial<LogRow> = {}): LogRow {
  return {
    request_id: 'req-default',
    created_at: Date.UTC(2026, 0, 1, 10),
    user_id: 1,
    token_id: 1,
    token_name: 'token',
    channel_id: 1,
    model: 'gpt-4o',
    upstream_model: 'gpt-4o',
    style: 'openai',
    path: '/v1/chat/completions',
    is_stream: 0,
    status: 200,
    input_tokens: 10,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    audio_input_tokens: 0,
    output_tokens: 5,
    reasoning_tokens: 0,
    audio_output_tokens: 0,
    image_input_tokens: 0,
    image_output_tokens: 0,
    web_search_calls: 0,
    quota: 100,
    latency_ms: 50,
    first_token_ms: null,
    attempts: '[]',
    warnings: '[]',
    usage_source: 'upstream',
    ip: '127.0.0.1',
    error: null,
    ...overrides,
  };
}
