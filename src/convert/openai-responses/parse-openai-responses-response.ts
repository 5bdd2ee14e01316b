import type { CanonicalAssistantPart } from '../../canonical/canonical-request.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import type { Converted } from '../../canonical/conversion.js';
import { withServiceTier } from '../../billing/normalized-usage.js';
import { mapOpenaiResponsesFinishReason } from './map-openai-responses-finish-reason.js';
import { openaiResponsesObjectSchema } from './openai-responses-wire-schema.js';
import { parseOpenaiResponsesOutputItem } from './parse-openai-responses-output-item.js';
import { countWebSearchCalls, readOpenaiResponsesUsage, withWebSearches } from './read-openai-responses-usage.js';

/**
 * An upstream Response object (non-streamed `POST /v1/responses`) → canonical. Output items are read one by
 * one: what cannot be carried (hosted tool calls, malformed items) is dropped with a warning. A body that is
 * no Response at all is a fault: it throws.
 */
export function parseOpenaiResponsesResponse(body: unknown): Converted<CanonicalResponse> {
  const parsed = openaiResponsesObjectSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`upstream body is not a Response: ${issue?.message ?? 'malformed'} at ${issue?.path.join('.') ?? ''}`);
  }
  const wire = parsed.data;
  const warnings: string[] = [];
  const content: CanonicalAssistantPart[] = [];
  for (const [index, item] of (wire.output ?? []).entries()) {
    const parts = parseOpenaiResponsesOutputItem(item, `output[${index}]`);
    if ('invalid' in parts) {
      warnings.push(`output[${index}]: a malformed ${JSON.stringify(item.type)} item is dropped (${parts.message})`);
      continue;
    }
    warnings.push(...parts.warnings);
    content.push(...parts.value);
  }
  if (wire.error?.message != null) warnings.push(`the upstream response failed: ${wire.error.message}`);

  const read = readOpenaiResponsesUsage(wire.usage);
  const usage = read === undefined ? undefined : withServiceTier(withWebSearches(read, countWebSearchCalls(wire.output)), wire.service_tier);
  if (usage === undefined) warnings.push('the upstream reported no usage');
  const hasToolCalls = content.some((part) => part.type === 'tool-call');
  const outputItemIds: string[] = [];
  for (const item of wire.output ?? []) if (typeof item.id === 'string' && item.id !== '') outputItemIds.push(item.id);
  return {
    value: {
      id: wire.id ?? '',
      model: wire.model ?? '',
      created: wire.created_at ?? 0,
      content,
      finishReason: mapOpenaiResponsesFinishReason(wire.status, wire.incomplete_details?.reason, hasToolCalls),
      usage,
      ...(outputItemIds.length === 0 ? {} : { outputItemIds }),
    },
    warnings,
  };
}
