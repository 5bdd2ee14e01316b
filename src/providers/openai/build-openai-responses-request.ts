import type { ProviderRequest, ProviderRequestInput } from '../provider-request.js';

/** OpenAI channels with `settings.api: responses`: `{base_url}/v1/responses`, Bearer key. */
export function buildOpenaiResponsesRequest(input: ProviderRequestInput): ProviderRequest {
  return {
    url: `${input.baseUrl}/v1/responses`,
    headers: { authorization: `Bearer ${input.key}`, 'content-type': 'application/json', accept: input.stream ? 'text/event-stream' : 'application/json' },
  };
}
