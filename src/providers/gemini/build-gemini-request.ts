import type { ProviderRequest, ProviderRequestInput } from '../provider-request.js';

/**
 * Gemini channels: always `:streamGenerateContent?alt=sse` (one JSON response per SSE event, as new-api
 * does; a non-streaming client gets the parts collected), key in `x-goog-api-key`.
 */
export function buildGeminiRequest(input: ProviderRequestInput): ProviderRequest {
  return {
    url: `${input.baseUrl}/v1beta/models/${encodeURIComponent(input.upstreamModel)}:streamGenerateContent?alt=sse`,
    headers: { 'x-goog-api-key': input.key, 'content-type': 'application/json', accept: 'text/event-stream' },
  };
}
