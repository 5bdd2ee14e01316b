import type { CanonicalRequest, CanonicalResponseFormat, CanonicalToolChoice } from '../../canonical/canonical-request.js';
import type { FormattedRequest } from '../../canonical/conversion.js';
import { offeredTools } from '../shared/offered-tools.js';
import { openaiEffortForModel } from '../shared/openai-effort-for-model.js';
import { openaiEffortForReasoning } from '../shared/openai-effort-for-reasoning.js';
import { takesOpenaiReasoning } from '../shared/takes-openai-reasoning.js';
import { chatEffortBesideFunctionTools } from './chat-effort-beside-function-tools.js';
import { chatOutputLimitField } from './chat-output-limit-field.js';
import { formatOpenaiChatMessages, type FormatOpenaiChatMessagesOptions } from './format-openai-chat-messages.js';

export type FormatOpenaiChatRequestOptions = FormatOpenaiChatMessagesOptions & {
  /** The channel's `settings.max_tokens_field` (chat-output-limit-field.ts); unset, chosen by the model's name. */
  outputLimitField?: unknown;
  /** The channel's `settings.reasoning_effort` (takes-openai-reasoning.ts); unset, chosen by the model's name. */
  reasoningEffortSetting?: unknown;
};

const defaultOptions: FormatOpenaiChatRequestOptions = { assistantReasoning: 'omit' };

const maxOpenaiStopSequences = 4;

function formatToolChoice(choice: CanonicalToolChoice): unknown {
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return choice.type;
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    case 'allowed-tools':
      // Only the allowed tools are declared (offeredTools): the mode alone keeps the model to them.
      return choice.mode;
    default: {
      const unhandled: never = choice;
      throw new Error(`unhandled tool choice ${JSON.stringify(unhandled)}`);
    }
  }
}

function formatResponseFormat(format: CanonicalResponseFormat): Record<string, unknown> {
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { type: format.type };
    case 'json_schema': {
      // `name` is required by OpenAI; "response" is the Vercel AI SDK's default too.
      const jsonSchema: Record<string, unknown> = { name: format.name ?? 'response', schema: format.schema };
      if (format.strict !== undefined) jsonSchema.strict = format.strict;
      return { type: 'json_schema', json_schema: jsonSchema };
    }
    default: {
      const unhandled: never = format;
      throw new Error(`unhandled response format ${JSON.stringify(unhandled)}`);
    }
  }
}

/** Canonical → the upstream Chat Completions body. Streams always ask for usage: billing needs it. */
export function formatOpenaiChatRequest(
  request: CanonicalRequest,
  upstreamModel: string,
  options: FormatOpenaiChatRequestOptions = defaultOptions,
): FormattedRequest {
  const messages = formatOpenaiChatMessages(request.system, request.messages, options);
  const warnings = [...messages.warnings];
  const body: Record<string, unknown> = { model: upstreamModel, messages: messages.value };

  if (request.tools.length > 0) {
    // OpenAI-compatible servers other than OpenAI refuse or ignore an `allowed_tools` choice: an allowed
    // subset is sent as the only tools declared, which every server honours.
    body.tools = offeredTools(request).map((tool) => {
      const fn: Record<string, unknown> = { name: tool.name };
      if (tool.description !== undefined) fn.description = tool.description;
      fn.parameters = tool.parameters;
      return { type: 'function', function: fn };
    });
    // OpenAI refuses tool_choice and parallel_tool_calls without tools; without tools they mean nothing.
    if (request.toolChoice !== undefined) body.tool_choice = formatToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) body[chatOutputLimitField(upstreamModel, options.outputLimitField)] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) warnings.push(`topK (${request.topK}) has no Chat Completions parameter; dropped`);
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    // OpenAI takes at most 4 (`stop`): more would be refused whole.
    if (request.stopSequences.length > maxOpenaiStopSequences) warnings.push(`stop sequences: ${request.stopSequences.length} given, Chat Completions takes ${maxOpenaiStopSequences}; the rest not sent`);
    body.stop = request.stopSequences.slice(0, maxOpenaiStopSequences);
  }
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.responseFormat !== undefined) body.response_format = formatResponseFormat(request.responseFormat);
  if (request.reasoning !== undefined) {
    // An effort as asked, or a thinking budget (Claude Code's `thinking`, Gemini's `thinkingBudget`) as the
    // nearest effort: Chat has no budget field, and without an effort the model reasons at its default
    // (`medium`), thinking off included.
    const effort = openaiEffortForReasoning(request.reasoning, warnings);
    if (effort !== undefined) {
      // A model that does not reason refuses the field (400): the request goes without it. One that does
      // is sent the nearest effort it takes (o3 refuses 'minimal'), and `none` where it refuses any other
      // beside function tools (gpt-5.4 and later).
      if (takesOpenaiReasoning(upstreamModel, options.reasoningEffortSetting)) {
        const taken = openaiEffortForModel(upstreamModel, effort, warnings);
        body.reasoning_effort = body.tools === undefined ? taken : chatEffortBesideFunctionTools(upstreamModel, taken, warnings);
      } else warnings.push(`reasoning effort '${effort}' is not sent: ${upstreamModel} takes no reasoning_effort (channel setting reasoning_effort)`);
    }
    if (request.reasoning.includeThoughts !== undefined) warnings.push('includeThoughts has no Chat Completions parameter; whether reasoning text comes back is up to the upstream');
  }
  if (request.user !== undefined) body.user = request.user;
  body.stream = request.stream;
  if (request.stream) body.stream_options = { include_usage: true };
  return { value: body, warnings, unsentReasoningTexts: messages.unsentReasoningTexts };
}
