import { describe, expect, it } from 'vitest';
import { openaiEffortForModel, type OpenaiEffort } from './openai-effort-for-model.js';

const effortFor = (model: string, effort: OpenaiEffort) => openaiEffortForModel(model, effort, []);

describe('openaiEffortForModel', () => {
  it("sends the o-series, gpt-oss and the Codex models 'low' for 'minimal' and 'none', which they refuse", () => {
    for (const model of ['o1', 'o3', 'o3-mini', 'o4-mini-2025-04-16', 'openai/o3', 'gpt-oss-120b', 'gpt-5-codex', 'gpt-5.1-codex', 'gpt-5.1-codex-mini', 'gpt-5.1-codex-max', 'gpt-5.2-codex']) {
      expect(effortFor(model, 'minimal'), model).toBe('low');
      expect(effortFor(model, 'none'), model).toBe('low');
      expect(effortFor(model, 'high'), model).toBe('high');
    }
  });

  it("sends GPT-5 'minimal' for 'none' (it takes no 'none'), and gpt-5.1 and later 'none' for 'minimal' (they take no 'minimal')", () => {
    for (const model of ['gpt-5', 'gpt-5-mini', 'gpt-5-nano-2025-08-07', 'openai/gpt-5']) {
      expect(effortFor(model, 'none'), model).toBe('minimal');
      expect(effortFor(model, 'minimal'), model).toBe('minimal');
    }
    for (const model of ['gpt-5.1', 'gpt-5.1-2025-11-13', 'gpt-5.2', 'gpt-5.2-2025-12-11', 'gpt-5.4', 'gpt-5.4-mini', 'gpt-6']) {
      expect(effortFor(model, 'minimal'), model).toBe('none');
      expect(effortFor(model, 'low'), model).toBe('low');
    }
  });

  it("sends 'xhigh' as 'high' where it is not taken, as it is where it is", () => {
    for (const model of ['o3', 'gpt-5-mini', 'gpt-5.1', 'gpt-5.1-codex', 'gpt-5.1-codex-mini']) expect(effortFor(model, 'xhigh'), model).toBe('high');
    for (const model of ['gpt-5.2', 'gpt-5.4-mini', 'gpt-5.1-codex-max', 'gpt-5.2-codex', 'gpt-5.2-pro']) expect(effortFor(model, 'xhigh'), model).toBe('xhigh');
  });

  it("sends gpt-5-pro 'high', the only effort it takes", () => {
    expect(effortFor('gpt-5-pro', 'low')).toBe('high');
  });

  it("sends gpt-5.2-pro and later -pro models 'medium' at the least (they take medium, high, xhigh: no 'none', no 'low')", () => {
    for (const model of ['gpt-5.2-pro', 'gpt-5.2-pro-2025-12-11', 'openai/gpt-5.4-pro']) {
      expect(effortFor(model, 'minimal'), model).toBe('medium');
      expect(effortFor(model, 'none'), model).toBe('medium');
      expect(effortFor(model, 'low'), model).toBe('medium');
      expect(effortFor(model, 'high'), model).toBe('high');
    }
  });

  it("sends the gpt-5.1 / gpt-5.2 chat models 'medium', the only effort they take", () => {
    for (const model of ['gpt-5.1-chat-latest', 'gpt-5.2-chat-latest', 'openai/gpt-5.1-chat-latest']) {
      for (const effort of ['none', 'minimal', 'low', 'high', 'xhigh'] as const) expect(effortFor(model, effort), `${model} ${effort}`).toBe('medium');
    }
  });

  it("sends codex-mini-latest what o4-mini takes: 'low' for 'minimal' and 'none', 'high' for 'xhigh'", () => {
    for (const model of ['codex-mini-latest', 'openai/codex-mini']) {
      expect(effortFor(model, 'minimal'), model).toBe('low');
      expect(effortFor(model, 'none'), model).toBe('low');
      expect(effortFor(model, 'medium'), model).toBe('medium');
      expect(effortFor(model, 'xhigh'), model).toBe('high');
    }
  });

  it("sends the deep-research models 'medium', the only effort they take", () => {
    for (const model of ['o4-mini-deep-research', 'o3-deep-research', 'o3-deep-research-2025-06-26', 'openai/o4-mini-deep-research-2025-06-26']) {
      for (const effort of ['none', 'minimal', 'low', 'high', 'xhigh'] as const) expect(effortFor(model, effort), `${model} ${effort}`).toBe('medium');
    }
  });

  it('names the move in a warning, and sends an unknown model the effort as asked, without one', () => {
    const warnings: string[] = [];
    expect(openaiEffortForModel('o3', 'minimal', warnings)).toBe('low');
    expect(warnings).toEqual(["reasoning effort 'minimal' sent as 'low': o3 takes 'low', 'medium', 'high'"]);
    const none: string[] = [];
    expect(openaiEffortForModel('deepseek-reasoner', 'minimal', none)).toBe('minimal');
    expect(openaiEffortForModel('o4-mini', 'medium', none)).toBe('medium');
    expect(none).toEqual([]);
  });
});
