import { createAnthropicMessagesStreamDecoder } from '../../convert/anthropic-messages/decode-anthropic-messages-stream.js';
import { createAnthropicMessagesStreamEncoder, encodeAnthropicMessagesStreamError } from '../../convert/anthropic-messages/encode-anthropic-messages-stream.js';
import { formatAnthropicMessagesRequest } from '../../convert/anthropic-messages/format-anthropic-messages-request.js';
import { formatAnthropicMessagesResponse } from '../../convert/anthropic-messages/format-anthropic-messages-response.js';
import { parseAnthropicMessagesRequest } from '../../convert/anthropic-messages/parse-anthropic-messages-request.js';
import { parseAnthropicMessagesResponse } from '../../convert/anthropic-messages/parse-anthropic-messages-response.js';
import { createGeminiStreamDecoder } from '../../convert/gemini/decode-gemini-stream.js';
import { createGeminiStreamEncoder, encodeGeminiStreamError } from '../../convert/gemini/encode-gemini-stream.js';
import { formatGeminiRequest } from '../../convert/gemini/format-gemini-request.js';
import { mergeGeminiChunks } from '../../convert/gemini/merge-gemini-chunks.js';
import { formatGeminiResponse } from '../../convert/gemini/format-gemini-response.js';
import { parseGeminiRequest } from '../../convert/gemini/parse-gemini-request.js';
import { parseGeminiResponse } from '../../convert/gemini/parse-gemini-response.js';
import { createOpenaiChatStreamDecoder } from '../../convert/openai-chat/decode-openai-chat-stream.js';
import { createOpenaiChatStreamEncoder, encodeOpenaiChatStreamError } from '../../convert/openai-chat/encode-openai-chat-stream.js';
import { formatOpenaiChatRequest } from '../../convert/openai-chat/format-openai-chat-request.js';
import { formatOpenaiChatResponse } from '../../convert/openai-chat/format-openai-chat-response.js';
import { parseOpenaiChatRequest } from '../../convert/openai-chat/parse-openai-chat-request.js';
import { parseOpenaiChatResponse } from '../../convert/openai-chat/parse-openai-chat-response.js';
import { createOpenaiResponsesStreamDecoder } from '../../convert/openai-responses/decode-openai-responses-stream.js';
import { createOpenaiResponsesStreamEncoder, encodeOpenaiResponsesStreamError } from '../../convert/openai-responses/encode-openai-responses-stream.js';
import { formatOpenaiResponsesRequest } from '../../convert/openai-responses/format-openai-responses-request.js';
import { formatOpenaiResponsesResponse } from '../../convert/openai-responses/format-openai-responses-response.js';
import { parseOpenaiResponsesRequest } from '../../convert/openai-responses/parse-openai-responses-request.js';
import { parseOpenaiResponsesResponse } from '../../convert/openai-responses/parse-openai-responses-response.js';
import type { TextStyleConverters, TextStyleName } from '../text-style.js';

/** Every text style's converters, by name: N parsers + M formatters meeting in src/canonical. */
export const textStyles: Record<TextStyleName, TextStyleConverters> = {
  'openai-chat': {
    parseRequest: parseOpenaiChatRequest,
    formatRequest: (request, upstreamModel, options) =>
      formatOpenaiChatRequest(request, upstreamModel, { assistantReasoning: options?.replayReasoning === true ? 'reasoning_content' : 'omit', outputLimitField: options?.outputLimitField, reasoningEffortSetting: options?.reasoningEffortSetting }),
    parseResponse: parseOpenaiChatResponse,
    formatResponse: formatOpenaiChatResponse,
    createDecoder: createOpenaiChatStreamDecoder,
    createEncoder: (context, options) => createOpenaiChatStreamEncoder(context, options),
    encodeStreamError: encodeOpenaiChatStreamError,
  },
  'openai-responses': {
    parseRequest: parseOpenaiResponsesRequest,
    formatRequest: formatOpenaiResponsesRequest,
    parseResponse: parseOpenaiResponsesResponse,
    formatResponse: formatOpenaiResponsesResponse,
    createDecoder: createOpenaiResponsesStreamDecoder,
    createEncoder: (context) => createOpenaiResponsesStreamEncoder(context),
    encodeStreamError: encodeOpenaiResponsesStreamError,
  },
  'anthropic-messages': {
    parseRequest: parseAnthropicMessagesRequest,
    formatRequest: formatAnthropicMessagesRequest,
    parseResponse: parseAnthropicMessagesResponse,
    formatResponse: formatAnthropicMessagesResponse,
    createDecoder: createAnthropicMessagesStreamDecoder,
    createEncoder: (context) => createAnthropicMessagesStreamEncoder(context),
    encodeStreamError: encodeAnthropicMessagesStreamError,
  },
  gemini: {
    parseRequest: parseGeminiRequest,
    formatRequest: formatGeminiRequest,
    parseResponse: parseGeminiResponse,
    formatResponse: formatGeminiResponse,
    createDecoder: createGeminiStreamDecoder,
    createEncoder: (context) => createGeminiStreamEncoder(context),
    encodeStreamError: encodeGeminiStreamError,
    mergeStreamEvents: mergeGeminiChunks,
  },
};
