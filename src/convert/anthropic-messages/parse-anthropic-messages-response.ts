import type { Converted } from '../../canonical/conversion.js';
import type { CanonicalAssistantPart } from '../../canonical/canonical-request.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import { anthropicMessageSchema, anthropicResponseBlockSchema } from './anthropic-messages-wire-schema.js';
import { mapAnthropicStopReason } from './map-anthropic-messages-finish-reason.js';
import { readAnthropicMessagesUsage } from './read-anthropic-messages-usage.js';

/**
 * Upstream non-streamed Message → canonical response. A body that is not a Message is a fault (thrown);
 * blocks we cannot carry (server tools and their results) and stop details are warnings. Anthropic sends
 * no creation time: `created` is 0, for the caller to fill from its clock.
 */
export function parseAnthropicMessagesResponse(body: unknown): Converted<CanonicalResponse> {
  const parsed = anthropicMessageSchema.safeParse(body);
  if (!parsed.success) throw new Error(`Anthropic response is not a Message: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
  const message = parsed.data;
  const warnings: string[] = [];

  const content: CanonicalAssistantPart[] = [];
  for (const [index, raw] of message.content.entries()) {
    const block = anthropicResponseBlockSchema.safeParse(raw);
    if (!block.success) {
      warnings.push(`content.${index}: a '${raw.type}' block is not carried: dropped`);
      continue;
    }
    const value = block.data;
    switch (value.type) {
      case 'text':
        if (value.citations != null && value.citations.length > 0) warnings.push(`content.${index}: text citations are not carried`);
        content.push({ type: 'text', text: value.text });
        break;
      case 'thinking':
        content.push(value.signature == null || value.signature === '' ? { type: 'reasoning', text: value.thinking } : { type: 'reasoning', text: value.thinking, signature: value.signature, issuer: 'anthropic' });
        break;
      case 'redacted_thinking':
        content.push({ type: 'reasoning', text: '', redactedData: value.data, issuer: 'anthropic' });
        break;
      case 'tool_use':
        content.push({ type: 'tool-call', id: value.id, name: value.name, arguments: JSON.stringify(value.input ?? {}) });
        break;
      default: {
        const unhandled: never = value;
        throw new Error(`unhandled block ${JSON.stringify(unhandled)}`);
      }
    }
  }

  if (message.stop_sequence != null) warnings.push(`stop_sequence ${JSON.stringify(message.stop_sequence)} is not carried (only the stop reason is)`);
  if (message.stop_details != null) warnings.push(`stop_details are not carried: ${JSON.stringify(message.stop_details)}`);
  if (message.container != null) warnings.push('container is not carried');
  if (message.usage === undefined) warnings.push('the response has no usage');

  return {
    value: {
      id: message.id,
      model: message.model ?? '',
      created: 0,
      content,
      finishReason: mapAnthropicStopReason(message.stop_reason),
      usage: message.usage === undefined ? undefined : readAnthropicMessagesUsage(message.usage),
    },
    warnings,
  };
}
