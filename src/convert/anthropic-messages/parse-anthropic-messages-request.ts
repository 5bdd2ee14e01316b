import type { Converted, InvalidWireRequest } from '../../canonical/conversion.js';
import type { CanonicalReasoningConfig, CanonicalRequest, CanonicalTextPart, CanonicalTool, CanonicalToolChoice } from '../../canonical/canonical-request.js';
import { anthropicRequestSchema, type AnthropicRequest } from './anthropic-messages-wire-schema.js';
import { parseAnthropicMessagesContent } from './parse-anthropic-messages-content.js';
import { toInvalidAnthropicMessagesRequest } from './to-invalid-anthropic-messages-request.js';

/** Top-level fields this parser carries; any other field is named in a warning (and read by the prompt estimate). */
export const carriedAnthropicRequestFields: ReadonlySet<string> = new Set([
  'model', 'max_tokens', 'messages', 'system', 'tools', 'tool_choice', 'metadata',
  'stop_sequences', 'stream', 'temperature', 'top_p', 'top_k', 'thinking', 'output_config',
]);
/** Fields of a custom tool this parser carries; the estimate reads the others (`input_examples`, …) as Anthropic does. */
export const carriedAnthropicToolFields: ReadonlySet<string> = new Set(['type', 'name', 'description', 'input_schema', 'cache_control']);

/**
 * POST /v1/messages body → canonical request. Refuses what Anthropic itself would refuse (no model,
 * no max_tokens, no messages, malformed known blocks); everything valid but not carried is a warning.
 */
export function parseAnthropicMessagesRequest(body: unknown): Converted<CanonicalRequest> | InvalidWireRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { invalid: true, param: '', message: 'body: the request body must be a JSON object' };
  const parsed = anthropicRequestSchema.safeParse(body);
  if (!parsed.success) return toInvalidAnthropicMessagesRequest(parsed.error);
  const wire = parsed.data;
  const warnings: string[] = [];

  const ignored = Object.keys(body).filter((key) => !carriedAnthropicRequestFields.has(key));
  if (ignored.length > 0) warnings.push(`fields not carried: ${ignored.join(', ')}`);

  const messages = parseAnthropicMessagesContent(wire.messages, warnings);
  if ('invalid' in messages) return messages;
  const tools = parseTools(wire.tools ?? [], warnings);
  if ('invalid' in tools) return tools;

  const request: CanonicalRequest = {
    model: wire.model,
    system: parseSystem(wire.system, warnings),
    messages,
    tools,
    maxOutputTokens: wire.max_tokens,
    stream: wire.stream ?? false,
  };
  if (wire.tool_choice !== undefined) {
    const { type, name, disable_parallel_tool_use: disableParallel } = wire.tool_choice;
    const toolChoice = parseToolChoice(type, name);
    if ('invalid' in toolChoice) return toolChoice;
    request.toolChoice = toolChoice;
    if (disableParallel != null) request.parallelToolCalls = !disableParallel;
  }
  if (wire.temperature !== undefined) request.temperature = wire.temperature;
  if (wire.top_p !== undefined) request.topP = wire.top_p;
  if (wire.top_k !== undefined) request.topK = wire.top_k;
  if (wire.stop_sequences !== undefined) request.stopSequences = wire.stop_sequences;
  if (wire.metadata !== undefined) {
    const { user_id: user, ...otherMetadata } = wire.metadata;
    if (user != null) request.user = user;
    if (Object.keys(otherMetadata).length > 0) warnings.push(`metadata fields not carried: ${Object.keys(otherMetadata).join(', ')}`);
  }
  const reasoning = parseReasoning(wire, warnings);
  if (reasoning !== undefined) request.reasoning = reasoning;
  if (wire.output_config?.format != null) request.responseFormat = { type: 'json_schema', schema: wire.output_config.format.schema };
  const otherOutputConfig = Object.keys(wire.output_config ?? {}).filter((key) => key !== 'effort' && key !== 'format');
  if (otherOutputConfig.length > 0) warnings.push(`output_config fields not carried: ${otherOutputConfig.join(', ')}`);

  return { value: request, warnings: [...new Set(warnings)] };
}

function parseSystem(system: AnthropicRequest['system'], warnings: string[]): CanonicalTextPart[] {
  if (system === undefined) return [];
  if (typeof system === 'string') return system === '' ? [] : [{ type: 'text', text: system }];
  return system.map((block) => {
    if (block.cache_control != null) warnings.push('cache_control breakpoints are not carried (prompt caching is left to the upstream)');
    if (block.citations != null && block.citations.length > 0) warnings.push('system: text citations are not carried');
    return { type: 'text', text: block.text };
  });
}

function parseTools(tools: NonNullable<AnthropicRequest['tools']>, warnings: string[]): CanonicalTool[] | InvalidWireRequest {
  const canonical: CanonicalTool[] = [];
  for (const [index, tool] of tools.entries()) {
    // Server tools (web_search_…, bash_…, code_execution_…) run inside Anthropic: no other vendor can run them.
    if (tool.type != null && tool.type !== 'custom') {
      warnings.push(`tools.${index}: the Anthropic server tool '${tool.name}' (${tool.type}) is not carried: dropped`);
      continue;
    }
    if (tool.input_schema === undefined) return { invalid: true, param: `tools.${index}.input_schema`, message: `tools.${index}.input_schema: Field required` };
    if (tool.cache_control != null) warnings.push('cache_control breakpoints are not carried (prompt caching is left to the upstream)');
    const others = Object.keys(tool).filter((key) => !carriedAnthropicToolFields.has(key));
    if (others.length > 0) warnings.push(`tools.${index}: fields not carried: ${others.join(', ')}`);
    canonical.push({ name: tool.name, ...(tool.description == null ? {} : { description: tool.description }), parameters: tool.input_schema });
  }
  return canonical;
}

function parseToolChoice(type: 'auto' | 'any' | 'tool' | 'none', name: string | undefined): CanonicalToolChoice | InvalidWireRequest {
  switch (type) {
    case 'auto':
      return { type: 'auto' };
    case 'any':
      return { type: 'required' };
    case 'none':
      return { type: 'none' };
    case 'tool':
      return name === undefined || name === '' ? { invalid: true, param: 'tool_choice.name', message: 'tool_choice.name: Field required' } : { type: 'tool', name };
    default: {
      const unhandled: never = type;
      throw new Error(`unhandled tool_choice ${String(unhandled)}`);
    }
  }
}

const effortByAnthropicEffort: Record<string, CanonicalReasoningConfig['effort']> = { low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'high' };

/** `thinking` (enabled with a budget, adaptive, disabled) and `output_config.effort` → one reasoning config. */
function parseReasoning(wire: AnthropicRequest, warnings: string[]): CanonicalReasoningConfig | undefined {
  let reasoning: CanonicalReasoningConfig | undefined;
  const { thinking } = wire;
  if (thinking !== undefined) {
    const includeThoughts = thinking.display !== 'omitted';
    if (thinking.type === 'enabled') reasoning = thinking.budget_tokens === undefined ? { includeThoughts } : { budgetTokens: thinking.budget_tokens, includeThoughts };
    else if (thinking.type === 'adaptive') reasoning = { includeThoughts };
    // Off, said explicitly: a budget of 0 (Gemini thinkingBudget 0, Responses' least effort). Left out,
    // upstreams that think by default (Gemini 2.5, gpt-5) would think, and bill it.
    else if (thinking.type === 'disabled') reasoning = { budgetTokens: 0 };
    else warnings.push(`thinking type '${thinking.type}' is not carried`);
  }
  const effort = wire.output_config?.effort;
  if (effort != null) {
    const mapped = effortByAnthropicEffort[effort];
    if (mapped === undefined) warnings.push(`output_config.effort '${effort}' is not carried`);
    else {
      if (mapped !== effort) warnings.push(`output_config.effort '${effort}' carried as '${mapped}'`);
      reasoning = { ...reasoning, effort: mapped };
    }
  }
  return reasoning;
}
