import { describe, expect, it } from 'vitest';
import { openaiEffortForReasoning } from './openai-effort-for-reasoning.js';

describe('openaiEffortForReasoning', () => {
  it('turns a thinking budget into the nearest effort, thinking off (0) into the least, and names it', () => {
    const cases: [number, string][] = [[0, 'minimal'], [1024, 'low'], [4095, 'low'], [4096, 'medium'], [10000, 'medium'], [16384, 'high'], [31999, 'high']];
    for (const [budgetTokens, effort] of cases) {
      const warnings: string[] = [];
      expect(openaiEffortForReasoning({ budgetTokens }, warnings), String(budgetTokens)).toBe(effort);
      expect(warnings).toEqual([`reasoning budget of ${budgetTokens} tokens is approximated as effort "${effort}"`]);
    }
  });

  it("sends Gemini's dynamic budget (-1) as no effort, so the model decides, with a warning", () => {
    const warnings: string[] = [];
    expect(openaiEffortForReasoning({ budgetTokens: -1, includeThoughts: true }, warnings)).toBeUndefined();
    expect(warnings).toEqual(['a dynamic reasoning budget is sent as no effort: the upstream model decides']);
  });

  it('takes an effort as it is, a budget beside it not sent (with a warning), and asks none without either', () => {
    const warnings: string[] = [];
    expect(openaiEffortForReasoning({ effort: 'high', budgetTokens: 2048 }, warnings)).toBe('high');
    expect(warnings).toEqual(['reasoning budget of 2048 tokens is not sent: the effort "high" is']);
    const none: string[] = [];
    expect(openaiEffortForReasoning({ effort: 'low' }, none)).toBe('low');
    expect(openaiEffortForReasoning({ includeThoughts: true }, none)).toBeUndefined();
    expect(none).toEqual([]);
  });
});
