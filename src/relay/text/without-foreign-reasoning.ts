import type { Converted } from '../../canonical/conversion.js';
import { dropForeignAnthropicReasoning } from '../../convert/anthropic-messages/drop-foreign-anthropic-reasoning.js';
import { dropForeignGeminiThoughtSignatures } from '../../convert/gemini/drop-foreign-gemini-thought-signatures.js';
import { dropForeignChatThoughtSignatures } from '../../convert/openai-chat/drop-foreign-chat-thought-signatures.js';
import { dropForeignResponsesReasoning } from '../../convert/openai-responses/drop-foreign-responses-reasoning.js';

const droppers: Record<'anthropic-messages' | 'openai-responses' | 'gemini' | 'openai-chat', (body: Record<string, unknown>) => Converted<Record<string, unknown>> | undefined> = {
  'anthropic-messages': dropForeignAnthropicReasoning,
  'openai-responses': dropForeignResponsesReasoning,
  gemini: dropForeignGeminiThoughtSignatures,
  'openai-chat': dropForeignChatThoughtSignatures,
};

/**
 * The client's body and bytes as a same-style channel gets them: without the reasoning signatures another
 * vendor issued (a converted channel answered that turn: the vendor would refuse them), the client's bytes
 * dropped then so the cleaned body is sent. Worked out on the first passthrough attempt only; its warnings
 * go to `warnings` once.
 */
export function withoutForeignReasoning(
  style: keyof typeof droppers,
  body: Record<string, unknown>,
  rawBody: Buffer | undefined,
  warnings: string[],
): () => { body: Record<string, unknown>; rawBody: Buffer | undefined } {
  let source: { body: Record<string, unknown>; rawBody: Buffer | undefined } | undefined;
  return () => {
    if (source !== undefined) return source;
    const cleaned = droppers[style](body);
    if (cleaned === undefined) source = { body, rawBody };
    else {
      warnings.push(...cleaned.warnings);
      source = { body: cleaned.value, rawBody: undefined };
    }
    return source;
  };
}
