import { emptyUsage } from '../../billing/normalized-usage.js';
import type { ConversionContext, Converted } from '../../canonical/conversion.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import { finishReasonOfTurn, formatAnthropicStopReason } from './map-anthropic-messages-finish-reason.js';
import { parseToolCallArguments } from './parse-tool-call-arguments.js';
import { formatAnthropicMessagesUsage } from './read-anthropic-messages-usage.js';
import { formatAnthropicRedactedData, formatAnthropicThinkingSignature } from './map-anthropic-opaque-reasoning.js';

/**
 * Canonical response → the Message a /v1/messages client receives: a fresh `msg_` id, the model the client
 * asked for, and the stop reason of what the turn held (`tool_use` for tool calls, `refusal` for an OpenAI
 * refusal: finishReasonOfTurn).
 */
export function formatAnthropicMessagesResponse(response: CanonicalResponse, context: ConversionContext): Converted<Record<string, unknown>> {
  const warnings: string[] = [];
  const content: Record<string, unknown>[] = [];
  // Empty and whitespace-only text (a Responses upstream's `output_text: ""` beside its calls, a compatible
  // Chat model's "\n\n" before them) is no block, as the stream encoder makes none: a client replaying it to
  // Anthropic is refused ("text content blocks must be non-empty", "… must contain non-whitespace text").
  // Whitespace right before more text is kept on that text, so that nothing between two texts is lost.
  let heldWhitespace = '';
  for (const [index, part] of response.content.entries()) {
    const held = heldWhitespace;
    heldWhitespace = '';
    switch (part.type) {
      case 'text':
        if (part.text.trim() === '') heldWhitespace = held + part.text;
        else content.push({ type: 'text', text: held + part.text });
        break;
      case 'reasoning':
        // Reasoning with both text and opaque data (OpenAI summary + encrypted_content) becomes two blocks.
        if (part.text !== '' || part.redactedData === undefined) content.push({ type: 'thinking', thinking: part.text, signature: part.signature === undefined ? '' : formatAnthropicThinkingSignature(part.signature, part.issuer) });
        if (part.redactedData !== undefined) content.push({ type: 'redacted_thinking', data: formatAnthropicRedactedData(part.redactedData, part.issuer) });
        break;
      case 'tool-call': {
        const input = parseToolCallArguments(part.arguments);
        warnings.push(...input.warnings.map((warning) => `content.${index}: ${warning}`));
        content.push({ type: 'tool_use', id: part.id === '' ? context.newId('toolu_') : part.id, name: part.name, input: input.value });
        break;
      }
      default: {
        const unhandled: never = part;
        throw new Error(`unhandled part ${JSON.stringify(unhandled)}`);
      }
    }
  }

  const finishReason = finishReasonOfTurn(response.finishReason, {
    toolCalls: response.content.some((part) => part.type === 'tool-call'),
    refusal: response.content.some((part) => part.type === 'text' && part.refusal === true),
  });
  const stopReason = formatAnthropicStopReason(finishReason);
  warnings.push(...stopReason.warnings);

  return {
    value: {
      id: context.newId('msg_'),
      type: 'message',
      role: 'assistant',
      model: context.requestedModel,
      content,
      stop_reason: stopReason.value,
      stop_sequence: null,
      usage: formatAnthropicMessagesUsage(response.usage ?? emptyUsage()),
    },
    warnings,
  };
}
