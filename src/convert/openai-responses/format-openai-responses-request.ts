import type { CanonicalReasoningConfig, CanonicalRequest, CanonicalResponseFormat, CanonicalToolChoice } from '../../canonical/canonical-request.js';
import type { FormatRequestOptions, FormattedRequest } from '../../canonical/conversion.js';
import { openaiEffortForModel, type OpenaiEffort } from '../shared/openai-effort-for-model.js';
import { openaiEffortForReasoning } from '../shared/openai-effort-for-reasoning.js';
import { takesOpenaiReasoning } from '../shared/takes-openai-reasoning.js';
import { formatOpenaiResponsesInput } from './format-openai-responses-input.js';

/** OpenAI refuses `max_output_tokens` below 16 ("integer below minimum value"): a smaller limit is raised to it. */
export const minimumMaxOutputTokens = 16;

/** OpenAI refuses a longer `safety_identifier` (string_above_max_length). */
const maximumSafetyIdentifierLength = 64;

/** Canonical settings Responses has no field for. */
const unsupportedSettings = [
  ['topK', 'top_k'],
  ['stopSequences', 'stop sequences'],
  ['seed', 'seed'],
  ['presencePenalty', 'presence_penalty'],
  ['frequencyPenalty', 'frequency_penalty'],
] as const satisfies readonly (readonly [keyof CanonicalRequest, string])[];

function formatToolChoice(choice: CanonicalToolChoice): unknown {
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return choice.type;
    case 'tool':
      return { type: 'function', name: choice.name };
    case 'allowed-tools':
      return { type: 'allowed_tools', mode: choice.mode, tools: choice.names.map((name) => ({ type: 'function', name })) };
    default: {
      const unhandled: never = choice;
      throw new Error(`unhandled tool choice ${JSON.stringify(unhandled)}`);
    }
  }
}

function formatTextFormat(format: CanonicalResponseFormat): Record<string, unknown> {
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { type: format.type };
    case 'json_schema':
      // `name` is required by OpenAI; other styles do not always have one.
      return { type: 'json_schema', name: format.name ?? 'response', schema: format.schema, ...(format.strict === undefined ? {} : { strict: format.strict }) };
    default: {
      const unhandled: never = format;
      throw new Error(`unhandled response format ${JSON.stringify(unhandled)}`);
    }
  }
}

function formatReasoning(reasoning: CanonicalReasoningConfig, warnings: string[]): { effort?: OpenaiEffort; summary?: 'auto' } | undefined {
  const wire: { effort?: OpenaiEffort; summary?: 'auto' } = {};
  const effort = openaiEffortForReasoning(reasoning, warnings);
  if (effort !== undefined) wire.effort = effort;
  if (reasoning.includeThoughts === true) wire.summary = 'auto';
  return Object.keys(wire).length > 0 ? wire : undefined;
}

/**
 * Canonical → the body of an upstream `POST /v1/responses`. The gateway holds the whole conversation, so it asks
 * OpenAI not to store it (`store: false`), and when reasoning is configured asks for `reasoning.encrypted_content`
 * so the reasoning can be replayed on the next turn without stored items.
 */
export function formatOpenaiResponsesRequest(request: CanonicalRequest, upstreamModel: string, options: Pick<FormatRequestOptions, 'reasoningEffortSetting'> = {}): FormattedRequest {
  const input = formatOpenaiResponsesInput(request.messages);
  const warnings = [...input.warnings];
  const body: Record<string, unknown> = { model: upstreamModel };
  if (request.system.length > 0) body.instructions = request.system.map((part) => part.text).join('\n\n');
  body.input = input.value;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
      // Responses defaults to strict, which rejects most schemas written for other styles.
      strict: false,
    }));
  }
  if (request.tools.length > 0) {
    if (request.toolChoice !== undefined) body.tool_choice = formatToolChoice(request.toolChoice);
  } else if (request.toolChoice !== undefined && request.toolChoice.type !== 'none' && request.toolChoice.type !== 'auto') {
    // Without tools a choice means nothing (an Anthropic or Gemini client may send `tools: []` beside one),
    // and OpenAI refuses one that forces a call ("Tool choice 'required' must be specified with 'tools'
    // parameter.", "Tool choice 'function' not found in 'tools' parameter."; `auto` and `none` it takes):
    // left out, as the Chat and Anthropic formatters leave it.
    warnings.push(`tool choice '${request.toolChoice.type}' without tools is not sent`);
  }
  // `parallel_tool_calls` stands on its own in the Responses API (every response carries it), unlike Chat's.
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.maxOutputTokens !== undefined) {
    if (request.maxOutputTokens < minimumMaxOutputTokens) warnings.push(`max output tokens ${request.maxOutputTokens} raised to ${minimumMaxOutputTokens}, the Responses minimum`);
    body.max_output_tokens = Math.max(request.maxOutputTokens, minimumMaxOutputTokens);
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.responseFormat !== undefined) body.text = { format: formatTextFormat(request.responseFormat) };
  if (request.reasoning !== undefined) {
    const reasoning = formatReasoning(request.reasoning, warnings);
    // A model that does not reason refuses `reasoning` (400 "Unsupported parameter: 'reasoning.effort'"):
    // the request goes without it, and without asking for encrypted reasoning it cannot make.
    if (reasoning !== undefined && !takesOpenaiReasoning(upstreamModel, options.reasoningEffortSetting)) {
      warnings.push(`reasoning ${JSON.stringify(reasoning)} is not sent: ${upstreamModel} takes no reasoning settings (channel setting reasoning_effort)`);
    } else if (reasoning !== undefined) {
      // The nearest effort the model takes: o3 refuses 'minimal' (a budget of 0 becomes), gpt-5.1 too.
      if (reasoning.effort !== undefined) reasoning.effort = openaiEffortForModel(upstreamModel, reasoning.effort, warnings);
      body.reasoning = reasoning;
      body.include = ['reasoning.encrypted_content'];
    }
  }
  for (const [key, name] of unsupportedSettings) {
    const value = request[key];
    if (value !== undefined && !(Array.isArray(value) && value.length === 0)) warnings.push(`${name} has no Responses equivalent; not sent`);
  }
  if (request.user !== undefined) {
    if (request.user.length <= maximumSafetyIdentifierLength) body.safety_identifier = request.user;
    else warnings.push(`the end-user id is longer than the ${maximumSafetyIdentifierLength} characters safety_identifier takes; not sent`);
  }
  body.store = false;
  body.stream = request.stream;
  return { value: body, warnings, unsentReasoningTexts: input.unsentReasoningTexts };
}
