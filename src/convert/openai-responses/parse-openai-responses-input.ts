import { z } from 'zod';
import type {
  CanonicalAssistantPart,
  CanonicalMessage,
  CanonicalTextPart,
  CanonicalToolResultPart,
  CanonicalUserPart,
} from '../../canonical/canonical-request.js';
import type { Converted, InvalidWireRequest } from '../../canonical/conversion.js';
import { toInvalidWireRequest } from '../shared/to-invalid-wire-request.js';
import { parseOpenaiResponsesContentPart } from './parse-openai-responses-content-part.js';
import { parseOpenaiResponsesOutputItem } from './parse-openai-responses-output-item.js';
import { openaiResponsesMessageItemSchema, type openaiResponsesTypedObjectSchema } from './openai-responses-wire-schema.js';

type TypedObject = z.infer<typeof openaiResponsesTypedObjectSchema>;
type InputItem = { type?: string | undefined } & Record<string, unknown>;

/** `function_call_output` and `custom_tool_call_output` share this shape. */
const toolOutputItemSchema = z
  .object({ call_id: z.string(), output: z.union([z.string(), z.array(z.object({ type: z.string() }).passthrough())]) })
  .passthrough();

export interface ParsedOpenaiResponsesInput {
  system: CanonicalTextPart[];
  messages: CanonicalMessage[];
}

/** `basePath` names the array (`input[2].content`, `input[5].output`). */
function parseUserContent(content: string | TypedObject[], basePath: string, warnings: string[]): CanonicalUserPart[] | InvalidWireRequest {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: CanonicalUserPart[] = [];
  for (const [index, part] of content.entries()) {
    const parsed = parseOpenaiResponsesContentPart(part, `${basePath}[${index}]`);
    if ('invalid' in parsed) return parsed;
    warnings.push(...parsed.warnings);
    if (parsed.value !== undefined) parts.push(parsed.value);
  }
  return parts;
}

/**
 * `input` (a string, or items) → canonical turns. System and developer messages join the system prompt
 * (after `instructions`); consecutive assistant-side items (messages, reasoning, function calls) form one
 * assistant turn and consecutive function call outputs one tool turn, each result named after its call.
 */
export function parseOpenaiResponsesInput(input: string | InputItem[]): Converted<ParsedOpenaiResponsesInput> | InvalidWireRequest {
  if (typeof input === 'string') return { value: { system: [], messages: [{ role: 'user', content: [{ type: 'text', text: input }] }] }, warnings: [] };
  const warnings: string[] = [];
  const system: CanonicalTextPart[] = [];
  const messages: CanonicalMessage[] = [];
  const callNames = new Map<string, string>();

  const appendAssistant = (parts: CanonicalAssistantPart[]): void => {
    if (parts.length === 0) return;
    const last = messages[messages.length - 1];
    if (last?.role === 'assistant') last.content.push(...parts);
    else messages.push({ role: 'assistant', content: parts });
    for (const part of parts) if (part.type === 'tool-call') callNames.set(part.id, part.name);
  };
  const appendToolResult = (result: CanonicalToolResultPart): void => {
    const last = messages[messages.length - 1];
    if (last?.role === 'tool') last.content.push(result);
    else messages.push({ role: 'tool', content: [result] });
  };

  for (const [index, item] of input.entries()) {
    const path = `input[${index}]`;
    const type = item.type ?? 'message';
    if (type === 'message') {
      const parsed = openaiResponsesMessageItemSchema.safeParse(item);
      if (!parsed.success) return toInvalidWireRequest(parsed.error, path);
      const { role, content } = parsed.data;
      if (role === 'assistant') {
        const assistant = parseOpenaiResponsesOutputItem({ ...parsed.data, type: 'message' }, path);
        if ('invalid' in assistant) return assistant;
        warnings.push(...assistant.warnings);
        appendAssistant(assistant.value);
        continue;
      }
      const parts = parseUserContent(content, `${path}.content`, warnings);
      if ('invalid' in parts) return parts;
      if (role === 'user') {
        messages.push(parts.length > 0 ? { role: 'user', content: parts } : { role: 'user', content: parts, clientPath: `input.${index}` });
        continue;
      }
      if (messages.length > 0) warnings.push(`${path}: a ${role} message after the conversation started is moved into the system prompt`);
      for (const [partIndex, part] of parts.entries()) {
        if (part.type === 'text') system.push(part);
        else warnings.push(`${path}.content[${partIndex}]: a ${part.type} in a ${role} message cannot be carried; dropped`);
      }
      continue;
    }
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const parsed = toolOutputItemSchema.safeParse(item);
      if (!parsed.success) return toInvalidWireRequest(parsed.error, path);
      // A tool's output holds what a user turn may: text, images and files.
      const content = parseUserContent(parsed.data.output, `${path}.output`, warnings);
      if ('invalid' in content) return content;
      const result: CanonicalToolResultPart = { type: 'tool-result', toolCallId: parsed.data.call_id, content };
      const name = callNames.get(parsed.data.call_id);
      if (name !== undefined) result.name = name;
      appendToolResult(result);
      continue;
    }
    if (type === 'item_reference') {
      warnings.push(`${path}: an item_reference cannot be resolved (the gateway keeps no stored responses); dropped`);
      continue;
    }
    const assistant = parseOpenaiResponsesOutputItem({ ...item, type }, path);
    if ('invalid' in assistant) return assistant;
    warnings.push(...assistant.warnings);
    appendAssistant(assistant.value);
  }
  return { value: { system, messages }, warnings };
}
