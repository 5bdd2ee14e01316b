import { describe, expect, it } from 'vitest';
import { takesGeminiThinking } from './takes-gemini-thinking.js';

describe('takesGeminiThinking', () => {
  it('takes Gemini 2.5 and later, and names it does not know (most likely newer)', () => {
    for (const model of ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-2.5-flash-lite', 'gemini-3-pro-preview', 'gemini-flash-latest', 'gemini-pro-latest', 'models/gemini-2.5-flash', 'google/gemini-2.5-pro']) {
      expect(takesGeminiThinking(model), model).toBe(true);
    }
  });

  it('refuses Gemini 2.0 and 1.x (2.0-flash-thinking-exp too: it takes no thinkingConfig)', () => {
    for (const model of ['gemini-2.0-flash', 'gemini-2.0-flash-001', 'gemini-2.0-flash-lite', 'gemini-2.0-flash-thinking-exp-01-21', 'gemini-1.5-pro', 'gemini-1.5-flash-8b', 'gemini-1.0-pro', 'gemini-pro', 'gemini-pro-vision', 'models/gemini-2.0-flash', 'google/gemini-2.0-flash-001']) {
      expect(takesGeminiThinking(model), model).toBe(false);
    }
  });

  it("lets the channel's reasoning_effort setting decide when it is a boolean", () => {
    expect(takesGeminiThinking('gemini-2.0-flash', true)).toBe(true);
    expect(takesGeminiThinking('gemini-2.5-flash', false)).toBe(false);
    expect(takesGeminiThinking('gemini-2.0-flash', 'yes')).toBe(false);
  });
});
