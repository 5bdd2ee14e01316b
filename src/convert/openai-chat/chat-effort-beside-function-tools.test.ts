import { describe, expect, it } from 'vitest';
import { chatEffortBesideFunctionTools } from './chat-effort-beside-function-tools.js';

describe('chatEffortBesideFunctionTools', () => {
  it("sends gpt-5.4, gpt-5.5 and the gpt-5.6 models 'none' beside function tools, with a warning", () => {
    for (const model of ['gpt-5.4', 'gpt-5.4-mini', 'gpt-5.4-mini-2026-03-17', 'openai/gpt-5.4-mini', 'gpt-5.4-nano', 'gpt-5.5', 'gpt-5.6-terra']) {
      const warnings: string[] = [];
      expect(chatEffortBesideFunctionTools(model, 'high', warnings), model).toBe('none');
      expect(warnings, model).toEqual([`reasoning effort 'high' sent as 'none': ${model} refuses another beside function tools on Chat Completions (a Responses channel takes it)`]);
    }
  });

  it("leaves 'none' as it is, and every other model's effort, without a warning", () => {
    const warnings: string[] = [];
    expect(chatEffortBesideFunctionTools('gpt-5.4-mini', 'none', warnings)).toBe('none');
    for (const model of ['gpt-5.2', 'gpt-5.1', 'gpt-5-mini', 'o4-mini', 'gpt-5.4-pro', 'gpt-5.5-chat-latest', 'gpt-5.3-codex', 'gpt-6', 'gpt-5.45']) {
      expect(chatEffortBesideFunctionTools(model, 'medium', warnings), model).toBe('medium');
    }
    expect(warnings).toEqual([]);
  });
});
