import type { ProviderRequest, ProviderRequestInput } from '../provider-request.js';
import { buildAnthropicMessagesRequest } from './build-anthropic-messages-request.js';

/**
 * Anthropic's token count (`{base_url}/v1/messages/count_tokens`): the headers of a Messages call
 * (`x-api-key`, `anthropic-version`, `anthropic-beta` forwarded), answered with JSON, never a stream.
 */
export function buildAnthropicCountTokensRequest(input: Omit<ProviderRequestInput, 'stream'>): ProviderRequest {
  const messages = buildAnthropicMessagesRequest({ ...input, stream: false });
  return { url: `${messages.url}/count_tokens`, headers: messages.headers };
}
