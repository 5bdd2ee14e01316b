import type { OpenaiEffort } from '../shared/openai-effort-for-model.js';

/**
 * The models whose Chat Completions refuse function tools beside a reasoning effort other than `none`: OpenAI
 * answers 400 "Function tools with reasoning_effort are not supported for gpt-5.4-mini in
 * /v1/chat/completions. Please use /v1/responses instead." (param `reasoning_effort`; later models add "or
 * set reasoning_effort to 'none'"). Seen for gpt-5.4 and gpt-5.4-mini (openai/openai-openapi#541 "for the
 * GPT-5.4 family", dotnet/extensions#7407, bug-ops/zeph#5789, pipecat-ai/pipecat#4043), gpt-5.5
 * (charmbracelet/crush#2913) and the gpt-5.6 models (BerriAI/litellm#34569: tools with `none` answered 200,
 * with `low` or none given 400). Only those names: gpt-5.2 and gpt-6 were not seen refusing, and their -pro,
 * -chat and -codex models take no `none` (or no Chat Completions) at all.
 */
const refusesEffortBesideFunctionTools = /(?:^|\/)gpt-5\.[4-6](?![\d])(?!.*-(?:pro|chat|codex)(?:$|-))/i;

/**
 * Pure: the effort a Chat Completions request that declares function tools sends `model`. For the models
 * above, anything but `none` would fail the whole request, so it goes as `none` (the model answers, and can
 * call the tools, without reasoning; the Responses API has no such rule), with a warning naming the loss.
 */
export function chatEffortBesideFunctionTools(model: string, effort: OpenaiEffort, warnings: string[]): OpenaiEffort {
  if (effort === 'none' || !refusesEffortBesideFunctionTools.test(model)) return effort;
  warnings.push(`reasoning effort '${effort}' sent as 'none': ${model} refuses another beside function tools on Chat Completions (a Responses channel takes it)`);
  return 'none';
}
