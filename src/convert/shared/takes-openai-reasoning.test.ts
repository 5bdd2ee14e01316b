import { describe, expect, it } from 'vitest';
import { takesOpenaiReasoning } from './takes-openai-reasoning.js';

describe('takesOpenaiReasoning', () => {
  it("takes OpenAI's reasoning models by name, with or without a vendor prefix", () => {
    for (const model of ['o1', 'o3-mini', 'o4-mini-2025-04-16', 'gpt-5', 'gpt-5-mini', 'gpt-5.1-chat-latest', 'gpt-5.2-codex', 'gpt-oss-120b', 'openai/gpt-oss-20b', 'openai/o3']) {
      expect(takesOpenaiReasoning(model), model).toBe(true);
    }
  });

  it('takes codex-mini (codex-mini-latest, Responses-only, o4-mini based) and the deep-research models', () => {
    for (const model of ['codex-mini-latest', 'openai/codex-mini', 'o4-mini-deep-research', 'o3-deep-research-2025-06-26']) {
      expect(takesOpenaiReasoning(model), model).toBe(true);
    }
  });

  it('leaves computer-use-preview and fine-tuned names to the channel setting (whether they take an effort is unchecked)', () => {
    for (const model of ['computer-use-preview', 'computer-use-preview-2025-03-11', 'ft:o4-mini-2025-04-16:acme::abc123']) {
      expect(takesOpenaiReasoning(model), model).toBe(false);
      expect(takesOpenaiReasoning(model, true), model).toBe(true);
    }
  });

  it('refuses models that do not reason, and o1-mini / o1-preview, which take no effort', () => {
    for (const model of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'chatgpt-4o-latest', 'gpt-5-chat-latest', 'o1-mini', 'o1-preview', 'deepseek-chat', 'llama-3.3-70b-versatile', 'qwen2.5-72b-instruct', 'Meta-Llama-3.1-8B-Instruct', 'ollama/llama3']) {
      expect(takesOpenaiReasoning(model), model).toBe(false);
    }
  });

  it("lets the channel's reasoning_effort setting decide when it is a boolean", () => {
    expect(takesOpenaiReasoning('gemini-2.5-flash', true)).toBe(true);
    expect(takesOpenaiReasoning('o3', false)).toBe(false);
    expect(takesOpenaiReasoning('gpt-4o', 'yes')).toBe(false);
  });
});
