/**
 * Pure: the field a Chat Completions upstream reads the output limit from. OpenAI's reasoning and GPT-5
 * models refuse `max_tokens` and take `max_completion_tokens`; DeepSeek and most compatible servers read
 * only `max_tokens`.
 */
export function chatOutputLimitField(model: string): 'max_completion_tokens' | 'max_tokens' {
  return /^(o\d|gpt-5)/.test(model) ? 'max_completion_tokens' : 'max_tokens';
}
