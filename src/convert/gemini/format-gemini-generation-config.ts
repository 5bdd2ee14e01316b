import { formatGeminiJsonSchema } from './format-gemini-json-schema.js';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { takesGeminiThinking } from '../shared/takes-gemini-thinking.js';
import { clampGeminiThinkingBudget } from './clamp-gemini-thinking-budget.js';

const maxGeminiStopSequences = 5;

/**
 * Gemini 2.x takes a token budget, Gemini 3 a level (ai.google.dev/gemini-api/docs/thinking); an effort
 * sent to a 2.x model becomes the budget below (Google's "low/medium/high" examples, approximately).
 */
const budgetByEffort = { minimal: 128, low: 1024, medium: 8192, high: 24576 } as const;

/**
 * Canonical sampling, output-format and reasoning settings → Gemini `generationConfig`. `reasoningEffortSetting`
 * is the channel's `settings.reasoning_effort` (takes-gemini-thinking.ts); unset, the model's name decides.
 */
export function formatGeminiGenerationConfig(request: CanonicalRequest, upstreamModel: string, warnings: string[], reasoningEffortSetting?: unknown): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.stopSequences !== undefined) {
    // Gemini takes at most 5 (ai.google.dev GenerationConfig.stopSequences): more would be refused whole.
    if (request.stopSequences.length > maxGeminiStopSequences) warnings.push(`stop sequences: ${request.stopSequences.length} given, Gemini takes ${maxGeminiStopSequences}; the rest not sent`);
    config.stopSequences = request.stopSequences.slice(0, maxGeminiStopSequences);
  }
  if (request.seed !== undefined) config.seed = request.seed;
  if (request.presencePenalty !== undefined) config.presencePenalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) config.frequencyPenalty = request.frequencyPenalty;

  const format = request.responseFormat;
  switch (format?.type) {
    case undefined:
      break;
    case 'text':
      config.responseMimeType = 'text/plain';
      break;
    case 'json_object':
      config.responseMimeType = 'application/json';
      break;
    case 'json_schema':
      config.responseMimeType = 'application/json';
      config.responseJsonSchema = formatGeminiJsonSchema(format.schema);
      if (format.name !== undefined || format.strict !== undefined) warnings.push('responseFormat: the json_schema name and strict flag have no Gemini form');
      break;
    default: {
      const unhandled: never = format;
      throw new Error(`unhandled response format ${JSON.stringify(unhandled)}`);
    }
  }

  const reasoning = request.reasoning;
  // Gemini 2.0 and older take no thinkingConfig (400 "thinking_config is not supported."): the request goes without it.
  if (reasoning !== undefined && !takesGeminiThinking(upstreamModel, reasoningEffortSetting)) {
    warnings.push(`thinkingConfig is not sent: ${upstreamModel} takes no thinking settings (channel setting reasoning_effort)`);
  } else if (reasoning !== undefined) {
    const thinking: Record<string, unknown> = {};
    if (reasoning.includeThoughts !== undefined) thinking.includeThoughts = reasoning.includeThoughts;
    if (reasoning.budgetTokens !== undefined) {
      thinking.thinkingBudget = clampGeminiThinkingBudget(reasoning.budgetTokens, upstreamModel, warnings);
      if (reasoning.effort !== undefined) warnings.push(`reasoning: effort "${reasoning.effort}" dropped; Gemini takes a budget or a level, not both`);
    } else if (reasoning.effort !== undefined) {
      if (/gemini-[12](?![0-9])/.test(upstreamModel)) {
        // The warning below names the budget sent, so fitting it into the model's range needs no other.
        thinking.thinkingBudget = clampGeminiThinkingBudget(budgetByEffort[reasoning.effort], upstreamModel, []);
        warnings.push(`reasoning: effort "${reasoning.effort}" sent as thinkingBudget ${thinking.thinkingBudget} (${upstreamModel} takes no thinkingLevel)`);
      } else {
        thinking.thinkingLevel = reasoning.effort.toUpperCase();
      }
    }
    if (Object.keys(thinking).length > 0) config.thinkingConfig = thinking;
  }
  return config;
}
