/**
 * The thinking budgets each Gemini 2.5 family accepts when thinking is on; Gemini refuses a
 * `thinkingBudget` outside them with a 400 (ai.google.dev/gemini-api/docs/thinking#set-budget):
 * 2.5 Pro 128–32768 (thinking cannot be turned off), 2.5 Flash 0–24576, 2.5 Flash-Lite 512–24576 (or 0).
 * Most specific pattern first: `flash-lite` is also a `flash`.
 */
const budgetRanges: { family: string; pattern: RegExp; min: number; max: number }[] = [
  { family: 'Gemini 2.5 Flash-Lite', pattern: /gemini-2\.5-flash-lite/, min: 512, max: 24576 },
  { family: 'Gemini 2.5 Flash', pattern: /gemini-2\.5-flash/, min: 1, max: 24576 },
  { family: 'Gemini 2.5 Pro', pattern: /gemini-2\.5-pro/, min: 128, max: 32768 },
];

/**
 * A positive thinking budget fitted into the range of the upstream model's family, with a warning when it
 * moved: Claude Code asks for 31999, which 2.5 Flash refuses. 0 (off) and -1 (dynamic) are the model's
 * own words and pass as they are, as does any budget for a model whose range is not known here.
 */
export function clampGeminiThinkingBudget(budget: number, upstreamModel: string, warnings: string[]): number {
  if (budget <= 0) return budget;
  const range = budgetRanges.find((entry) => entry.pattern.test(upstreamModel));
  if (range === undefined) return budget;
  const clamped = Math.min(Math.max(budget, range.min), range.max);
  if (clamped !== budget) warnings.push(`reasoning: thinking budget ${budget} sent as ${clamped} (${range.family} takes ${range.min}–${range.max})`);
  return clamped;
}
