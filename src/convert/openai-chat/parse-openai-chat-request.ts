import type {
  CanonicalReasoningConfig,
  CanonicalRequest,
  CanonicalResponseFormat,
  CanonicalTool,
  CanonicalToolChoice,
} from '../../canonical/canonical-request.js';
import type { Converted, InvalidWireRequest } from '../../canonical/conversion.js';
import { toAllowedToolsChoice } from '../shared/to-allowed-tools-choice.js';
import { toInvalidWireRequest } from '../shared/to-invalid-wire-request.js';
import { openaiChatRequestSchema, type OpenaiChatRequest } from './openai-chat-request-schema.js';
import { parseOpenaiChatMessages } from './parse-openai-chat-messages.js';

/** Fields this parser reads (or the relay reads: `stream_options.include_usage` drives the stream encoder). */
const carriedFields = new Set([
  'model', 'messages', 'tools', 'tool_choice', 'parallel_tool_calls', 'max_tokens', 'max_completion_tokens', 'temperature',
  'top_p', 'top_k', 'stop', 'seed', 'presence_penalty', 'frequency_penalty', 'response_format', 'reasoning_effort',
  'stream', 'stream_options', 'n', 'user',
]);
const efforts = new Set<string>(['minimal', 'low', 'medium', 'high']);
const simpleToolChoices = new Set<string>(['auto', 'none', 'required']);

/** Helpers push their warnings into the caller's list and return a value or the field at fault. */
type Parsed<T> = { value: T } | InvalidWireRequest;

function refuse(param: string, message: string): InvalidWireRequest {
  return { invalid: true, param, message };
}

function parseTools(tools: NonNullable<OpenaiChatRequest['tools']>, warnings: string[]): Parsed<CanonicalTool[]> {
  const parsed: CanonicalTool[] = [];
  for (const [index, tool] of tools.entries()) {
    if (tool.type !== 'function') {
      warnings.push(`tools[${index}]: a ${JSON.stringify(tool.type)} tool cannot be carried to other API styles; dropped`);
      continue;
    }
    if (tool.function === undefined) return refuse(`tools[${index}].function`, `Missing required parameter: 'tools[${index}].function'`);
    const { name, description, parameters, strict } = tool.function;
    if (strict === true) warnings.push(`tools[${index}].strict is not carried: arguments are not guaranteed to match the schema`);
    // No `parameters` means a function without arguments (platform.openai.com/docs/api-reference/chat/create).
    const schema = parameters ?? { type: 'object', properties: {} };
    parsed.push(description === undefined ? { name, parameters: schema } : { name, description, parameters: schema });
  }
  return { value: parsed };
}

function parseToolChoice(choice: NonNullable<OpenaiChatRequest['tool_choice']>, tools: CanonicalTool[], warnings: string[]): Parsed<CanonicalToolChoice | undefined> {
  if (typeof choice === 'string') {
    if (!simpleToolChoices.has(choice)) return refuse('tool_choice', `Invalid value for 'tool_choice': ${JSON.stringify(choice)}`);
    return { value: { type: choice as 'auto' | 'none' | 'required' } };
  }
  if (choice.type === 'function') {
    if (choice.function === undefined) return refuse('tool_choice.function', `Missing required parameter: 'tool_choice.function'`);
    return { value: { type: 'tool', name: choice.function.name } };
  }
  const mode = choice.type === 'allowed_tools' ? choice.allowed_tools?.mode : undefined;
  if (mode === 'auto' || mode === 'required') {
    const listed = (choice.allowed_tools?.tools ?? []).flatMap((tool) => (tool.type === 'function' && tool.function !== undefined ? [tool.function.name] : []));
    return { value: toAllowedToolsChoice(mode, listed, tools, 'tool_choice.allowed_tools.tools', warnings) };
  }
  warnings.push(`tool_choice of type ${JSON.stringify(choice.type)} cannot be carried to other API styles; the upstream default applies`);
  return { value: undefined };
}

function parseResponseFormat(format: NonNullable<OpenaiChatRequest['response_format']>, warnings: string[]): Parsed<CanonicalResponseFormat | undefined> {
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { value: { type: format.type } };
    case 'json_schema': {
      const jsonSchema = format.json_schema;
      if (jsonSchema === undefined) return refuse('response_format.json_schema', `Missing required parameter: 'response_format.json_schema'`);
      if (jsonSchema.description !== undefined) warnings.push('response_format.json_schema.description is not carried');
      const parsed: CanonicalResponseFormat = { type: 'json_schema', schema: jsonSchema.schema ?? {} };
      if (jsonSchema.name !== undefined) parsed.name = jsonSchema.name;
      if (jsonSchema.strict !== null && jsonSchema.strict !== undefined) parsed.strict = jsonSchema.strict;
      return { value: parsed };
    }
    default:
      return refuse('response_format.type', `Invalid value for 'response_format.type': ${JSON.stringify(format.type)}`);
  }
}

/** An inbound Chat Completions body → canonical, or the field at fault. */
export function parseOpenaiChatRequest(body: unknown): Converted<CanonicalRequest> | InvalidWireRequest {
  const parsedBody = openaiChatRequestSchema.safeParse(body);
  if (!parsedBody.success) return toInvalidWireRequest(parsedBody.error);
  const wire = parsedBody.data;
  for (const legacy of ['functions', 'function_call'] as const) {
    if (wire[legacy] !== undefined && wire[legacy] !== null) return refuse(legacy, `Legacy '${legacy}' cannot be converted to other API styles: use 'tools' and 'tool_choice'`);
  }
  if (wire.n !== null && wire.n !== undefined && wire.n > 1) return refuse('n', `'n' > 1 cannot be served through another API style: only one choice is produced`);

  const warnings: string[] = [];
  const conversation = parseOpenaiChatMessages(wire.messages);
  if ('invalid' in conversation) return conversation;
  warnings.push(...conversation.warnings);

  const tools = parseTools(wire.tools ?? [], warnings);
  if ('invalid' in tools) return tools;
  const request: CanonicalRequest = {
    model: wire.model,
    system: conversation.value.system,
    messages: conversation.value.messages,
    tools: tools.value,
    stream: wire.stream ?? false,
  };

  if (wire.tool_choice !== null && wire.tool_choice !== undefined) {
    const choice = parseToolChoice(wire.tool_choice, request.tools, warnings);
    if ('invalid' in choice) return choice;
    if (choice.value !== undefined) request.toolChoice = choice.value;
  }
  if (wire.response_format !== null && wire.response_format !== undefined) {
    const format = parseResponseFormat(wire.response_format, warnings);
    if ('invalid' in format) return format;
    if (format.value !== undefined) request.responseFormat = format.value;
  }
  if (wire.reasoning_effort !== null && wire.reasoning_effort !== undefined) {
    if (efforts.has(wire.reasoning_effort)) {
      const reasoning: CanonicalReasoningConfig = { effort: wire.reasoning_effort as CanonicalReasoningConfig['effort'] };
      request.reasoning = reasoning;
    } else warnings.push(`reasoning_effort ${JSON.stringify(wire.reasoning_effort)} has no canonical form; the upstream default applies`);
  }

  const maxOutputTokens = wire.max_completion_tokens ?? wire.max_tokens;
  if (maxOutputTokens !== null && maxOutputTokens !== undefined) request.maxOutputTokens = maxOutputTokens;
  if (wire.parallel_tool_calls !== null && wire.parallel_tool_calls !== undefined) request.parallelToolCalls = wire.parallel_tool_calls;
  if (wire.temperature !== null && wire.temperature !== undefined) request.temperature = wire.temperature;
  if (wire.top_p !== null && wire.top_p !== undefined) request.topP = wire.top_p;
  if (wire.top_k !== null && wire.top_k !== undefined) request.topK = wire.top_k;
  if (wire.stop !== null && wire.stop !== undefined) request.stopSequences = typeof wire.stop === 'string' ? [wire.stop] : wire.stop;
  if (wire.seed !== null && wire.seed !== undefined) request.seed = wire.seed;
  if (wire.presence_penalty !== null && wire.presence_penalty !== undefined) request.presencePenalty = wire.presence_penalty;
  if (wire.frequency_penalty !== null && wire.frequency_penalty !== undefined) request.frequencyPenalty = wire.frequency_penalty;
  if (wire.user !== null && wire.user !== undefined) request.user = wire.user;

  const ignored = Object.keys(wire).filter((key) => !carriedFields.has(key) && wire[key] !== null && wire[key] !== undefined);
  if (ignored.length > 0) warnings.push(`not carried to other API styles: ${ignored.join(', ')}`);
  return { value: request, warnings };
}
