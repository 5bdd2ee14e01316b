import type { CanonicalRequest } from '../canonical/canonical-request.js';

/**
 * Pure: the id of the first tool result whose call is not earlier in the history, or undefined. A Responses
 * client continuing on `previous_response_id` sends a `function_call_output` without its `function_call`
 * (OpenAI has the call stored); the gateway keeps no stored responses, and Chat, Anthropic and Gemini all
 * refuse a tool result without its call.
 */
export function unpairedToolResult(request: CanonicalRequest): string | undefined {
  const calls = new Set<string>();
  for (const message of request.messages) {
    if (message.role === 'assistant') for (const part of message.content) if (part.type === 'tool-call') calls.add(part.id);
    if (message.role === 'tool') for (const part of message.content) if (!calls.has(part.toolCallId)) return part.toolCallId;
  }
  return undefined;
}
