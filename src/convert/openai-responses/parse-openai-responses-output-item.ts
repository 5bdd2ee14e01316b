import type { z } from 'zod';
import type { CanonicalAssistantPart } from '../../canonical/canonical-request.js';
import type { Converted, InvalidWireRequest } from '../../canonical/conversion.js';
import { toInvalidWireRequest } from '../shared/to-invalid-wire-request.js';
import { parseOpenaiResponsesEncryptedContent } from './map-openai-responses-encrypted-content.js';
import {
  openaiResponsesCustomToolCallItemSchema,
  openaiResponsesFunctionCallItemSchema,
  openaiResponsesMessageItemSchema,
  openaiResponsesReasoningItemSchema,
  type openaiResponsesTypedObjectSchema,
  type OpenaiResponsesReasoningItem,
} from './openai-responses-wire-schema.js';
import { toReasoningFields } from '../shared/map-opaque-reasoning.js';

type TypedObject = z.infer<typeof openaiResponsesTypedObjectSchema>;

/** Summary and reasoning text of a reasoning item as one text: parts joined by a blank line. */
export function readOpenaiResponsesReasoningText(item: Pick<OpenaiResponsesReasoningItem, 'summary' | 'content'>): string {
  return [...(item.summary ?? []), ...(item.content ?? [])].map((part) => part.text).join('\n\n');
}

/**
 * Custom tools take free text, not JSON. Other styles only know JSON arguments, so the text travels as
 * `{"input": …}` (with a warning): the call is kept rather than dropped.
 */
export function wrapCustomToolInput(input: string): string {
  return JSON.stringify({ input });
}

function parseReasoning(item: OpenaiResponsesReasoningItem): CanonicalAssistantPart[] {
  const text = readOpenaiResponsesReasoningText(item);
  const encrypted = item.encrypted_content ?? '';
  if (text === '' && encrypted === '') return [];
  return [{ type: 'reasoning', text, ...(encrypted === '' ? {} : toReasoningFields(parseOpenaiResponsesEncryptedContent(encrypted))) }];
}

/**
 * One assistant-side item (an output item of a response, or the same item echoed back in a request's
 * `input`) → canonical assistant parts. `path` names the item in errors and warnings (`input[3]`, `output[0]`).
 */
export function parseOpenaiResponsesOutputItem(item: TypedObject, path: string): Converted<CanonicalAssistantPart[]> | InvalidWireRequest {
  const warnings: string[] = [];
  const refuse = (error: z.ZodError): InvalidWireRequest => toInvalidWireRequest(error, path);
  switch (item.type) {
    case 'message': {
      const parsed = openaiResponsesMessageItemSchema.safeParse(item);
      if (!parsed.success) return refuse(parsed.error);
      const content = parsed.data.content;
      if (typeof content === 'string') return { value: content === '' ? [] : [{ type: 'text', text: content }], warnings };
      const parts: CanonicalAssistantPart[] = [];
      for (const [index, part] of content.entries()) {
        if ((part.type === 'output_text' || part.type === 'input_text') && typeof part.text === 'string') {
          parts.push({ type: 'text', text: part.text });
          if (Array.isArray(part.annotations) && part.annotations.length > 0) warnings.push(`${path}.content[${index}]: annotations are not carried`);
        } else if (part.type === 'refusal' && typeof part.refusal === 'string') {
          parts.push({ type: 'text', text: part.refusal, refusal: true });
        } else warnings.push(`${path}.content[${index}]: a ${JSON.stringify(part.type)} part cannot be carried; dropped`);
      }
      return { value: parts, warnings };
    }
    case 'function_call': {
      const parsed = openaiResponsesFunctionCallItemSchema.safeParse(item);
      if (!parsed.success) return refuse(parsed.error);
      // "" (some compatible servers, and clients replaying them) is a call that takes no arguments: {}.
      return { value: [{ type: 'tool-call', id: parsed.data.call_id, name: parsed.data.name, arguments: parsed.data.arguments || '{}' }], warnings };
    }
    case 'custom_tool_call': {
      const parsed = openaiResponsesCustomToolCallItemSchema.safeParse(item);
      if (!parsed.success) return refuse(parsed.error);
      warnings.push(`${path}: custom tool call ${JSON.stringify(parsed.data.name)} carried as a function call with arguments {"input": …}`);
      return { value: [{ type: 'tool-call', id: parsed.data.call_id, name: parsed.data.name, arguments: wrapCustomToolInput(parsed.data.input) }], warnings };
    }
    case 'reasoning': {
      const parsed = openaiResponsesReasoningItemSchema.safeParse(item);
      if (!parsed.success) return refuse(parsed.error);
      const parts = parseReasoning(parsed.data);
      // With `store: true` clients echo bare ids: the reasoning itself stays on OpenAI's servers.
      if (parts.length === 0 && parsed.data.id != null) warnings.push(`${path}: a reasoning item with neither text nor encrypted_content only refers to stored state; dropped`);
      return { value: parts, warnings };
    }
    default:
      warnings.push(`${path}: a ${JSON.stringify(item.type)} item cannot be carried to other API styles; dropped`);
      return { value: [], warnings };
  }
}
