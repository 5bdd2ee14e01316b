import { assertNever } from '../errors/gateway-error.js';
import { buildAnthropicMessagesRequest } from './anthropic/build-anthropic-messages-request.js';
import { buildGeminiRequest } from './gemini/build-gemini-request.js';
import { buildOpenaiChatRequest } from './openai/build-openai-chat-request.js';
import type { ProviderRequest, ProviderRequestInput, UpstreamTextStyle } from './provider-request.js';

/** The text style each channel type speaks; undefined for types that serve no text generation. */
export function upstreamTextStyleOf(channelType: string): UpstreamTextStyle | undefined {
  switch (channelType) {
    case 'openai':
      return 'openai-chat';
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
