import { describe, expect, it } from 'vitest';
import { chatOutputLimitField } from './chat-output-limit-field.js';

describe('chatOutputLimitField', () => {
  it("takes the channel's setting when it names a field, else chooses by the model's name", () => {
    expect(chatOutputLimitField('o3-mini')).toBe('max_completion_tokens');
    expect(chatOutputLimitField('gpt-5.1')).toBe('max_completion_tokens');
    expect(chatOutputLimitField('deepseek-chat')).toBe('max_tokens');
    expect(chatOutputLimitField('my-azure-o3', 'max_completion_tokens')).toBe('max_completion_tokens');
    expect(chatOutputLimitField('gpt-5-compatible', 'max_tokens')).toBe('max_tokens');
    expect(chatOutputLimitField('o3', 'something-else')).toBe('max_completion_tokens');
  });
});
