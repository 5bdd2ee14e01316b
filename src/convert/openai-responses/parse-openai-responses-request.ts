import type {
  CanonicalReasoningConfig,
  CanonicalRequest,
  CanonicalResponseFormat,
  CanonicalTool,
  CanonicalToolChoice,
} from '../../canonical/canonical-request.js';
import type { Converted, InvalidWireRequest } from '../../canonical/conversion.js';
import { isRecord } from '../shared/is-record.js';
import { toAllowedToolsChoice } from '../shared/to-allowed-tools-choice.js';
import { toInvalidWireRequest } from '../shared/to-invalid-wire-request.js';
import { parseOpenaiResponsesCustomTool } from './parse-openai-responses-custom-tool.js';
import { parseOpenaiResponsesInput } from './parse-openai-responses-input.js';
import {
  openaiResponsesCustomToolSchema,
  openaiResponsesFunctionToolSchema,
  openaiResponsesJsonSchemaFormatSchema,
  openaiResponsesRequestSchema,
  type OpenaiResponsesRequest,
} from './openai-responses-wire-schema.js';

/** Fields this parser reads. */
const carriedFields = new Set([
  'model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'max_output_tokens', 'temperature', 'top_p',
  'reasoning', 'text', 'stream', 'user', 'safety_identifier',
]);
/** Fields that change nothing in what the model produces, or that the relay itself honours: ignored without a warning. */
const harmlessFields = new Set(['include', 'stream_options', 'metadata', 'service_tier', 'truncation', 'prompt_cache_key', 'prompt_cache_retention']);
const efforts = new Set<string>(['minimal', 'low', 'medium', 'high']);

type Parsed<T> = { value: T } | InvalidWireRequest;
type Wire = OpenaiResponsesRequest;

function refuse(param: string, message: string): InvalidWireRequest {
  return { invalid: true, param, message };
}

function parseTools(tools: NonNullable<Wire['tools']>, warnings: string[]): Parsed<CanonicalTool[]> {
  const parsed: CanonicalTool[] = [];
  for (const [index, tool] of tools.entries()) {
    if (tool.type === 'custom') {
      const customTool = openaiResponsesCustomToolSchema.safeParse(tool);
      if (!customTool.success) return toInvalidWireRequest(customTool.error, `tools[${index}]`);
      const carried = parseOpenaiResponsesCustomTool(customTool.data, `tools[${index}]`);
      warnings.push(...carried.warnings);
      parsed.push(carried.value);
      continue;
    }
    if (tool.type !== 'function') {
      warnings.push(`tools[${index}]: a ${JSON.stringify(tool.type)} tool cannot be carried to other API styles; dropped`);
      continue;
    }
    const functionTool = openaiResponsesFunctionToolSchema.safeParse(tool);
    if (!functionTool.success) return toInvalidWireRequest(functionTool.error, `tools[${index}]`);
    const { name, description, parameters, strict } = functionTool.data;
    if (strict === true) warnings.push(`tools[${index}].strict is not carried: arguments are not guaranteed to match the schema`);
    const canonical: CanonicalTool = { name, parameters: parameters ?? { type: 'object', properties: {} } };
    if (description !== null && description !== undefined) canonical.description = description;
    parsed.push(canonical);
  }
  return { value: parsed };
}

function parseToolChoice(choice: NonNullable<Wire['tool_choice']>, tools: CanonicalTool[], warnings: string[]): Parsed<CanonicalToolChoice | undefined> {
  if (typeof choice === 'string') {
    if (choice === 'auto' || choice === 'none' || choice === 'required') return { value: { type: choice } };
    return refuse('tool_choice', `Invalid value for 'tool_choice': ${JSON.stringify(choice)}`);
  }
  // A custom tool is a function once carried (parse-openai-responses-custom-tool.ts): chosen by its name alike.
  if (choice.type === 'function' || choice.type === 'custom') {
    if (typeof choice.name !== 'string') return refuse('tool_choice.name', `Missing required parameter: 'tool_choice.name'`);
    return { value: { type: 'tool', name: choice.name } };
  }
  if (choice.type === 'allowed_tools' && (choice.mode === 'auto' || choice.mode === 'required')) {
    const listed = Array.isArray(choice.tools) ? choice.tools : [];
    const names = listed.flatMap((tool) => (isRecord(tool) && (tool.type === 'function' || tool.type === 'custom') && typeof tool.name === 'string' ? [tool.name] : []));
    return { value: toAllowedToolsChoice(choice.mode, names, tools, 'tool_choice.tools', warnings) };
  }
  warnings.push(`tool_choice of type ${JSON.stringify(choice.type)} cannot be carried to other API styles; the upstream default applies`);
  return { value: undefined };
}

function parseTextFormat(format: NonNullable<NonNullable<Wire['text']>['format']>, warnings: string[]): Parsed<CanonicalResponseFormat> {
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { value: { type: format.type } };
    case 'json_schema': {
      const parsed = openaiResponsesJsonSchemaFormatSchema.safeParse(format);
      if (!parsed.success) return toInvalidWireRequest(parsed.error, 'text.format');
      if (parsed.data.description != null) warnings.push('text.format.description is not carried');
      const canonical: CanonicalResponseFormat = { type: 'json_schema', schema: parsed.data.schema };
      if (parsed.data.name != null) canonical.name = parsed.data.name;
      if (parsed.data.strict != null) canonical.strict = parsed.data.strict;
      return { value: canonical };
    }
    default:
      return refuse('text.format.type', `Invalid value for 'text.format.type': ${JSON.stringify(format.type)}`);
  }
}

function parseReasoning(reasoning: NonNullable<Wire['reasoning']>, warnings: string[]): CanonicalReasoningConfig | undefined {
  const config: CanonicalReasoningConfig = {};
  const effort = reasoning.effort;
  if (effort != null) {
    if (efforts.has(effort)) config.effort = effort as NonNullable<CanonicalReasoningConfig['effort']>;
    else if (effort === 'xhigh' || effort === 'max') {
      warnings.push(`reasoning.effort ${JSON.stringify(effort)} is carried as "high"`);
      config.effort = 'high';
    } else if (effort === 'none') {
      // No reasoning at all: a thinking budget of 0 (Gemini thinkingBudget 0, Anthropic thinking disabled).
      config.budgetTokens = 0;
    } else warnings.push(`reasoning.effort ${JSON.stringify(effort)} has no canonical form; the upstream default applies`);
  }
  const summary = reasoning.summary ?? reasoning.generate_summary;
  if (summary != null) {
    // Asking for a summary is asking to see the reasoning; how long it should be is not carried.
    config.includeThoughts = true;
    if (summary !== 'auto') warnings.push(`reasoning.summary ${JSON.stringify(summary)} is carried as a request for reasoning text; its length is not`);
  }
  return Object.keys(config).length > 0 ? config : undefined;
}

/** What the request relies on that only OpenAI's own storage can provide: warned, never honoured. */
function warnStatefulFields(wire: Wire, warnings: string[]): void {
  if (wire.previous_response_id != null) warnings.push('previous_response_id cannot be carried to other API styles: the earlier turns are not sent');
  if (wire.conversation != null) warnings.push('conversation cannot be carried to other API styles: its stored items are not sent');
  if (wire.store === true) warnings.push('store: the response is not stored and cannot be retrieved later');
  if (wire.background === true) warnings.push('background: the response is produced in the foreground');
}

/** An inbound Responses body (`POST /v1/responses`) → canonical, or the field at fault. */
export function parseOpenaiResponsesRequest(body: unknown): Converted<CanonicalRequest> | InvalidWireRequest {
  const parsedBody = openaiResponsesRequestSchema.safeParse(body);
  if (!parsedBody.success) return toInvalidWireRequest(parsedBody.error);
  const wire = parsedBody.data;
  if (wire.input == null) return refuse('input', `Missing required parameter: 'input' (the gateway keeps no stored prompts or responses)`);

  const warnings: string[] = [];
  warnStatefulFields(wire, warnings);
  const conversation = parseOpenaiResponsesInput(wire.input);
  if ('invalid' in conversation) return conversation;
  // Nothing left to send — as /v1/chat/completions refuses `messages: []`: an upstream must not be paid for it.
  if (conversation.value.messages.length === 0 && conversation.value.system.length === 0) {
    return refuse('input', `Invalid 'input': no message is left to send (it is empty, or holds only items the gateway cannot resolve, such as item_reference)`);
  }
  warnings.push(...conversation.warnings);

  const tools = parseTools(wire.tools ?? [], warnings);
  if ('invalid' in tools) return tools;
  const instructions = wire.instructions ?? '';
  const request: CanonicalRequest = {
    model: wire.model,
    system: [...(instructions === '' ? [] : [{ type: 'text' as const, text: instructions }]), ...conversation.value.system],
    messages: conversation.value.messages,
    tools: tools.value,
    stream: wire.stream ?? false,
  };

  if (wire.tool_choice != null) {
    const choice = parseToolChoice(wire.tool_choice, request.tools, warnings);
    if ('invalid' in choice) return choice;
    if (choice.value !== undefined) request.toolChoice = choice.value;
  }
  if (wire.text?.format != null) {
    const format = parseTextFormat(wire.text.format, warnings);
    if ('invalid' in format) return format;
    request.responseFormat = format.value;
  }
  if (wire.text?.verbosity != null) warnings.push(`text.verbosity ${JSON.stringify(wire.text.verbosity)} is not carried`);
  if (wire.reasoning != null) {
    const reasoning = parseReasoning(wire.reasoning, warnings);
    if (reasoning !== undefined) request.reasoning = reasoning;
  }
  if (wire.max_output_tokens != null) request.maxOutputTokens = wire.max_output_tokens;
  if (wire.parallel_tool_calls != null) request.parallelToolCalls = wire.parallel_tool_calls;
  if (wire.temperature != null) request.temperature = wire.temperature;
  if (wire.top_p != null) request.topP = wire.top_p;
  const user = wire.user ?? wire.safety_identifier;
  if (user != null) request.user = user;

  const stateful = new Set(['previous_response_id', 'conversation', 'store', 'background']);
  const ignored = Object.keys(wire).filter((key) => !carriedFields.has(key) && !harmlessFields.has(key) && !stateful.has(key) && wire[key] != null);
  if (ignored.length > 0) warnings.push(`not carried to other API styles: ${ignored.join(', ')}`);
  return { value: request, warnings };
}
