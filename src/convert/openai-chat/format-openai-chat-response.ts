import { emptyUsage } from '../../billing/normalized-usage.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import type { ConversionContext, Converted } from '../../canonical/conversion.js';
import { mapToOpenaiChatFinishReason } from './map-openai-chat-finish-reason.js';
import { formatOpenaiChatThoughtSignature } from './map-openai-chat-thought-signature.js';
import { formatOpenaiChatUsage } from './read-openai-chat-usage.js';

/**
 * Canonical → the client's `chat.completion` body. The upstream's id is kept (a fresh `chatcmpl-` id only when
 * it had none) so logs on both sides match; the model is the one the client asked for. Reasoning goes out as
 * DeepSeek's `reasoning_content`, the field Chat Completions clients that show reasoning read. A Gemini
 * upstream's signature right before a tool call goes on that call (`context.thoughtSignaturesOnToolCalls`).
 */
export function formatOpenaiChatResponse(response: CanonicalResponse, context: ConversionContext): Converted<Record<string, unknown>> {
  const warnings: string[] = [];
  let text = '';
  let refusal = '';
  let reasoning = '';
  const toolCalls: Record<string, unknown>[] = [];
  const carriesSignatures = context.thoughtSignaturesOnToolCalls === true;
  for (const [index, part] of response.content.entries()) {
    switch (part.type) {
      case 'text':
        if (part.refusal === true) refusal += part.text;
        else text += part.text;
        break;
      case 'reasoning':
        reasoning += part.text;
        if (part.signature !== undefined && !(carriesSignatures && response.content[index + 1]?.type === 'tool-call')) {
          warnings.push('a reasoning signature cannot be expressed in Chat Completions; dropped');
        }
        if (part.redactedData !== undefined) warnings.push('redacted/encrypted reasoning cannot be expressed in Chat Completions; dropped');
        break;
      case 'tool-call': {
        const before = response.content[index - 1];
        const signature = carriesSignatures && before?.type === 'reasoning' ? before.signature : undefined;
        const issuer = before?.type === 'reasoning' ? before.issuer : undefined;
        toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments }, ...(signature === undefined ? {} : formatOpenaiChatThoughtSignature(signature, issuer)) });
        break;
      }
      default: {
        const unhandled: never = part;
        throw new Error(`unhandled assistant part ${JSON.stringify(unhandled)}`);
      }
    }
  }
  const message: Record<string, unknown> = { role: 'assistant', content: text === '' && (toolCalls.length > 0 || refusal !== '') ? null : text };
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  message.refusal = refusal === '' ? null : refusal;

  const finishReason = mapToOpenaiChatFinishReason(response.finishReason);
  warnings.push(...finishReason.warnings);
  return {
    value: {
      id: response.id === '' ? context.newId('chatcmpl-') : response.id,
      object: 'chat.completion',
      created: response.created > 0 ? response.created : context.now,
      model: context.requestedModel,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason.value }],
      usage: formatOpenaiChatUsage(response.usage ?? emptyUsage()),
    },
    warnings,
  };
}
