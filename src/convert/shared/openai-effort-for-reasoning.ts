import type { CanonicalReasoningConfig } from '../../canonical/canonical-request.js';
import type { OpenaiEffort } from './openai-effort-for-model.js';

/** A thinking budget (Anthropic, Gemini) → the nearest effort; 0 (thinking off) → the least there is. */
function effortForBudget(budgetTokens: number): OpenaiEffort {
  if (budgetTokens <= 0) return 'minimal';
  if (budgetTokens < 4096) return 'low';
  if (budgetTokens < 16384) return 'medium';
  return 'high';
}

/**
 * Pure: the OpenAI effort (Chat `reasoning_effort`, Responses `reasoning.effort`) a converted reasoning
 * setting asks for, before the model's own rule (openai-effort-for-model.ts). An effort is taken as it is
 * (a budget beside it is not sent, with a warning); a budget alone — an Anthropic client's `thinking`
 * (Claude Code's `budget_tokens: 31999`, `disabled` as 0), a Gemini client's `thinkingBudget` — becomes
 * the nearest effort, 0 (off) the least; Gemini's dynamic budget (-1) none at all, so the upstream model
 * decides. Each approximation is named in a warning.
 */
export function openaiEffortForReasoning(reasoning: CanonicalReasoningConfig, warnings: string[]): OpenaiEffort | undefined {
  const { effort, budgetTokens } = reasoning;
  if (effort !== undefined) {
    if (budgetTokens !== undefined) warnings.push(`reasoning budget of ${budgetTokens} tokens is not sent: the effort ${JSON.stringify(effort)} is`);
    return effort;
  }
  if (budgetTokens === undefined) return undefined;
  if (budgetTokens < 0) {
    warnings.push('a dynamic reasoning budget is sent as no effort: the upstream model decides');
    return undefined;
  }
  const approximated = effortForBudget(budgetTokens);
  warnings.push(`reasoning budget of ${budgetTokens} tokens is approximated as effort ${JSON.stringify(approximated)}`);
  return approximated;
}
