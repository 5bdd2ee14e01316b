import type { ProviderRequest, ProviderRequestInput } from '../provider-request.js';

/** The API version sent when the client did not name one (a client speaking Messages names its own). */
export const defaultAnthropicVersion = '2023-06-01';

/** Anthropic channels: `{base_url}/v1/messages`, `x-api-key`, `anthropic-version`; `anthropic-beta` forwarded. */
export function buildAnthropicMessagesRequest(input: ProviderRequestInput): ProviderRequest {
  const version = headerValue(input.clientHeaders['anthropic-version']) ?? defaultAnthropicVersion;
  const beta = headerValue(input.clientHeaders['anthropic-beta']);
  return {
    url: `${input.baseUrl}/v1/messages`,
    headers: {
      'x-api-key': input.key,
      'anthropic-version': version,
      ...(beta === undefined ? {} : { 'anthropic-beta': beta }),
      'content-type': 'application/json',
      accept: input.stream ? 'text/event-stream' : 'application/json',
    },
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value.join(',');
  return value === undefined || value === '' ? undefined : value;
}
