import type { FormattedRequest, FormatRequestOptions } from '../../canonical/conversion.js';
import type { CanonicalReasoningConfig, CanonicalRequest, CanonicalToolChoice } from '../../canonical/canonical-request.js';
import { formatAnthropicMessagesContent } from './format-anthropic-messages-content.js';
import { formatAnthropicOutputSchema } from './format-anthropic-output-schema.js';
import { offeredTools } from '../shared/offered-tools.js';
import { takesAnthropicThinking } from '../shared/takes-anthropic-thinking.js';
import { finalToolTurnLacksThinking } from './final-tool-turn-lacks-thinking.js';

/** Anthropic's smallest thinking budget (docs: extended thinking, "budget_tokens … minimum is 1,024"). */
const minimumThinkingBudget = 1024;
/** OpenAI-style effort as a thinking budget, kept small so that it fits under most max_tokens defaults. */
const thinkingBudgetByEffort = { minimal: 1024, low: 2048, medium: 4096, high: 8192 } as const;
/** What a thinking budget fitted under the gateway's default max_tokens leaves for the answer, when it can. */
const answerRoomUnderDefault = 1024;

/**
 * Canonical request → upstream POST /v1/messages body for `upstreamModel`. `max_tokens` (which Anthropic
 * requires) is the request's own, else the relay's `defaultMaxOutputTokens`, never raised: the reservation
 * covers that much output and no more, so a thinking budget is fitted below it instead.
 */
export function formatAnthropicMessagesRequest(request: CanonicalRequest, upstreamModel: string, options: FormatRequestOptions = {}): FormattedRequest {
  const warnings: string[] = [];
  const unsentReasoningTexts: string[] = [];
  const body: Record<string, unknown> = { model: upstreamModel };
  const maxTokens = request.maxOutputTokens ?? options.defaultMaxOutputTokens;
  if (maxTokens !== undefined) body.max_tokens = maxTokens;

  // Anthropic refuses empty and whitespace-only system text blocks as it does in messages.
  const system = request.system.filter((part) => part.text.trim() !== '');
  if (system.length === 1) body.system = system[0]?.text;
  else if (system.length > 1) body.system = system.map((part) => ({ type: 'text', text: part.text }));

  const messages = formatAnthropicMessagesContent(request.messages, warnings, unsentReasoningTexts);
  body.messages = messages;

  if (request.tools.length > 0) {
    // Anthropic has no allowed-tools choice: an allowed subset is sent as the only tools declared.
    if (request.toolChoice?.type === 'allowed-tools') {
      warnings.push(`tool choice allowed-tools: Anthropic has no allowed subset; only the allowed tools (${request.toolChoice.names.join(', ')}) are declared`);
    }
    body.tools = offeredTools(request).map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      // Anthropic requires an object schema with `type`; OpenAI clients may send `{}` for a tool without arguments.
      input_schema: 'type' in tool.parameters ? tool.parameters : { type: 'object', ...tool.parameters },
    }));
    const toolChoice = formatToolChoice(request.toolChoice, request.parallelToolCalls);
    if (toolChoice !== undefined) body.tool_choice = toolChoice;
  } else {
    if (request.toolChoice !== undefined && request.toolChoice.type !== 'none' && request.toolChoice.type !== 'auto') {
      warnings.push(`tool choice '${request.toolChoice.type}' without tools is not sent`);
    }
    declareHistoryTools(body, warnings);
  }

  // Under the client's own max_tokens the budget is lowered only as far as Anthropic requires (below it).
  const answerRoom = request.maxOutputTokens === undefined ? answerRoomUnderDefault : 1;
  let thinkingBudget: number | undefined;
  // Claude 3.5 and older have no extended thinking and refuse the block (400): the request goes without it.
  if (request.reasoning !== undefined && !takesAnthropicThinking(upstreamModel, options.reasoningEffortSetting)) {
    warnings.push(`thinking is not sent: ${upstreamModel} has no extended thinking (channel setting reasoning_effort)`);
  } else if (request.reasoning !== undefined) thinkingBudget = formatThinkingBudget(request.reasoning, maxTokens, answerRoom, warnings);
  // Anthropic refuses thinking with a forced tool choice (docs: extended thinking, "Tool use"): the choice wins.
  const choice = request.toolChoice;
  const forcedTool = request.tools.length > 0 && (choice?.type === 'required' || choice?.type === 'tool' || (choice?.type === 'allowed-tools' && choice.mode === 'required'));
  if (forcedTool && thinkingBudget !== undefined && thinkingBudget > 0) {
    warnings.push(`thinking not sent: Anthropic refuses it with tool choice '${request.toolChoice?.type}'`);
    thinkingBudget = undefined;
  }
  // A tool loop whose assistant turn lost its signed thinking (a client style that cannot carry the
  // signature) is refused with thinking on: this request goes without it, max_tokens unchanged.
  if (thinkingBudget !== undefined && thinkingBudget > 0 && finalToolTurnLacksThinking(messages)) {
    warnings.push("thinking not sent: the assistant turn whose tool calls this request answers has no signed thinking to replay, which Anthropic requires with thinking on");
    thinkingBudget = undefined;
  }
  if (thinkingBudget !== undefined) body.thinking = thinkingBudget === 0 ? { type: 'disabled' } : { type: 'enabled', budget_tokens: thinkingBudget };
  const thinkingOn = thinkingBudget !== undefined && thinkingBudget > 0;

  const responseFormat = request.responseFormat;
  if (responseFormat?.type === 'json_schema') {
    const schema = formatAnthropicOutputSchema(responseFormat.schema);
    warnings.push(...schema.warnings);
    body.output_config = { format: { type: 'json_schema', schema: schema.value } };
    if (responseFormat.name !== undefined) warnings.push(`json_schema name '${responseFormat.name}' is not carried (Anthropic takes the schema only)`);
  } else if (responseFormat?.type === 'json_object') {
    warnings.push('response format json_object is not carried: Anthropic has no JSON mode without a schema');
  }

  // With thinking on, Anthropic refuses temperature ≠ 1, top_k, and top_p below 0.95 (docs: extended thinking, "Feature compatibility").
  if (request.temperature !== undefined) {
    if (thinkingOn && request.temperature !== 1) warnings.push(`temperature ${request.temperature} is not sent: Anthropic requires 1 with thinking`);
    else if (request.temperature > 1) {
      warnings.push(`temperature ${request.temperature} clamped to 1 (Anthropic's range is 0–1)`);
      body.temperature = 1;
    } else body.temperature = request.temperature;
  }
  if (request.topP !== undefined) {
    if (thinkingOn && request.topP < 0.95) warnings.push(`top_p ${request.topP} is not sent: Anthropic requires 0.95–1 with thinking`);
    else body.top_p = request.topP;
  }
  if (request.topK !== undefined) {
    if (thinkingOn) warnings.push(`top_k ${request.topK} is not sent: Anthropic refuses it with thinking`);
    else body.top_k = request.topK;
  }
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) body.stop_sequences = request.stopSequences;
  if (request.user !== undefined) body.metadata = { user_id: request.user };
  if (request.seed !== undefined) warnings.push('seed is not supported by Anthropic: not sent');
  if (request.presencePenalty !== undefined) warnings.push('presence_penalty is not supported by Anthropic: not sent');
  if (request.frequencyPenalty !== undefined) warnings.push('frequency_penalty is not supported by Anthropic: not sent');
  if (request.stream) body.stream = true;

  return { value: body, warnings: [...new Set(warnings)], unsentReasoningTexts };
}

function formatToolChoice(choice: CanonicalToolChoice | undefined, parallelToolCalls: boolean | undefined): Record<string, unknown> | undefined {
  const disableParallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  switch (choice?.type) {
    case undefined:
      return parallelToolCalls === false ? { type: 'auto', ...disableParallel } : undefined;
    case 'auto':
      return { type: 'auto', ...disableParallel };
    case 'required':
      return { type: 'any', ...disableParallel };
    case 'none':
      return { type: 'none' };
    case 'tool':
      return { type: 'tool', name: choice.name, ...disableParallel };
    case 'allowed-tools':
      // Only the allowed tools are declared (offeredTools): the mode alone keeps the model to them.
      return { type: choice.mode === 'required' ? 'any' : 'auto', ...disableParallel };
    default: {
      const unhandled: never = choice;
      throw new Error(`unhandled tool choice ${JSON.stringify(unhandled)}`);
    }
  }
}

/**
 * The budget to send (0 = thinking disabled), or undefined to leave `thinking` out. Anthropic requires it
 * below max_tokens: one that leaves less than `answerRoom` of max_tokens is lowered to leave that much,
 * else to max_tokens − 1, as long as it stays at Anthropic's minimum; else thinking is not sent.
 */
function formatThinkingBudget(reasoning: CanonicalReasoningConfig, maxTokens: number | undefined, answerRoom: number, warnings: string[]): number | undefined {
  if (reasoning.includeThoughts === false) warnings.push('includeThoughts=false is not carried: Anthropic returns thinking whenever it is on');
  let budget = reasoning.budgetTokens;
  if (budget === 0) return 0;
  // No budget, or Gemini's −1 ("dynamic", which Anthropic lacks): the effort decides, medium by default.
  if (budget === undefined || budget < 0) {
    const effort = reasoning.effort ?? 'medium';
    const described = budget === undefined ? (reasoning.effort === undefined ? 'reasoning without a budget' : `reasoning effort '${effort}'`) : `dynamic thinking budget ${budget}`;
    budget = thinkingBudgetByEffort[effort];
    warnings.push(`${described} sent as a thinking budget of ${budget} tokens`);
  } else if (reasoning.effort !== undefined) {
    warnings.push(`reasoning effort '${reasoning.effort}' is not sent beside a thinking budget`);
  }
  if (budget < minimumThinkingBudget) {
    warnings.push(`thinking budget ${budget} raised to Anthropic's minimum of ${minimumThinkingBudget}`);
    budget = minimumThinkingBudget;
  }
  if (maxTokens !== undefined && budget > maxTokens - answerRoom) {
    const fitted = [maxTokens - answerRoom, maxTokens - 1].find((candidate) => candidate >= minimumThinkingBudget);
    if (fitted === undefined) {
      warnings.push(`thinking not sent: max_tokens ${maxTokens} leaves no room for Anthropic's minimum budget of ${minimumThinkingBudget}`);
      return undefined;
    }
    if (fitted < budget) {
      const why = fitted === maxTokens - 1 ? 'Anthropic requires it below max_tokens' : `to leave ${maxTokens - fitted} of max_tokens ${maxTokens} for the answer`;
      warnings.push(`thinking budget ${budget} lowered to ${fitted} (${why})`);
      budget = fitted;
    }
  }
  return budget;
}

/**
 * Anthropic refuses `tool_use` / `tool_result` blocks in a request that defines no tools ("Requests which
 * include `tool_use` or `tool_result` blocks must define tools"), which a client's later turn without tools
 * sends (its history still holds the calls). The tools the history names are declared with an open object
 * schema, and `tool_choice: none` keeps the model from calling them.
 */
function declareHistoryTools(body: Record<string, unknown>, warnings: string[]): void {
  const messages = body.messages as { content: { type: string; name?: unknown }[] }[];
  const blocks = messages.flatMap((message) => message.content);
  if (!blocks.some((block) => block.type === 'tool_use' || block.type === 'tool_result')) return;
  const names = [...new Set(blocks.flatMap((block) => (block.type === 'tool_use' && typeof block.name === 'string' ? [block.name] : [])))];
  if (names.length === 0) return;
  body.tools = names.map((name) => ({ name, input_schema: { type: 'object' } }));
  body.tool_choice = { type: 'none' };
  warnings.push(`tools: the history's tool calls need their tools declared for Anthropic; ${names.join(', ')} declared without a schema, with tool_choice none`);
}
