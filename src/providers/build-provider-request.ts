import { assertNever } from '../errors/gateway-error.js';
import { buildAnthropicMessagesRequest } from './anthropic/build-anthropic-messages-request.js';
import { buildGeminiRequest } from './gemini/build-gemini-request.js';
import { buildOpenaiChatRequest } from './openai/build-openai-chat-request.js';
import { buildOpenaiResponsesRequest } from './openai/build-openai-responses-request.js';
import type { ProviderRequest, ProviderRequestInput, UpstreamTextStyle } from './provider-request.js';

/**
 * The text style a channel speaks; undefined for types that serve no text generation. An OpenAI channel
 * speaks Chat Completions unless its settings say `api: responses`.
 */
export function upstreamTextStyleOf(channel: { type: string; settings: Record<string, unknown> }): UpstreamTextStyle | undefined {
  switch (channel.type) {
    case 'openai':
      return channel.settings.api === 'responses' ? 'openai-responses' : 'openai-chat';
    case 'anthropic':
      return 'anthropic-messages';
    case 'gemini':
      return 'gemini';
    default:
      return undefined;
  }
}

export function buildProviderRequest(style: UpstreamTextStyle, input: ProviderRequestInput): ProviderRequest {
  switch (style) {
    case 'openai-chat':
      return buildOpenaiChatRequest(input);
    case 'openai-responses':
      return buildOpenaiResponsesRequest(input);
    case 'anthropic-messages':
      return buildAnthropicMessagesRequest(input);
    case 'gemini':
      return buildGeminiRequest(input);
    default:
      return assertNever(style);
  }
}

/** Whether the upstream call streams (Gemini always does) — the client's wish is separate. */
export function upstreamStreams(style: UpstreamTextStyle, clientStreams: boolean): boolean {
  return style === 'gemini' ? true : clientStreams;
}
