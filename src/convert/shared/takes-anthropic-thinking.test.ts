import { describe, expect, it } from 'vitest';
import { takesAnthropicThinking } from './takes-anthropic-thinking.js';

describe('takesAnthropicThinking', () => {
  it('takes Claude 3.7 Sonnet and later, and names it does not know (most likely newer)', () => {
    for (const model of ['claude-3-7-sonnet-20250219', 'claude-sonnet-4-20250514', 'claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5-20251001', 'claude-opus-5', 'anthropic/claude-sonnet-4', 'deepseek-chat', 'claude']) {
      expect(takesAnthropicThinking(model), model).toBe(true);
    }
  });

  it('refuses Claude 3.5 and older, with or without a vendor or Bedrock prefix', () => {
    for (const model of ['claude-3-5-sonnet-20241022', 'claude-3-5-haiku-latest', 'claude-3-opus-20240229', 'claude-3-sonnet-20240229', 'claude-3-haiku-20240307', 'claude-2.1', 'claude-2', 'claude-instant-1.2', 'anthropic/claude-3.5-sonnet', 'anthropic.claude-3-5-sonnet-20240620-v1:0', 'us.anthropic.claude-3-haiku-20240307-v1:0']) {
      expect(takesAnthropicThinking(model), model).toBe(false);
    }
  });

  it("lets the channel's reasoning_effort setting decide when it is a boolean", () => {
    expect(takesAnthropicThinking('claude-3-5-sonnet-20241022', true)).toBe(true);
    expect(takesAnthropicThinking('claude-sonnet-4-5', false)).toBe(false);
    expect(takesAnthropicThinking('claude-3-5-haiku-latest', 'yes')).toBe(false);
  });
});
