import type { ProviderRequest, ProviderRequestInput } from '../provider-request.js';

/** OpenAI-compatible channels: `{base_url}/v1/chat/completions`, Bearer key. */
export function buildOpenaiChatRequest(input: ProviderRequestInput): ProviderRequest {
  return {
    url: `${input.baseUrl}/v1/chat/completions`,
    headers: { authorization: `Bearer ${input.key}`, 'content-type': 'application/json', accept: input.stream ? 'text/event-stream' : 'application/json' },
  };
}
