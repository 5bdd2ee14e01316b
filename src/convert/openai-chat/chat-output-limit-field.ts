export type ChatOutputLimitField = 'max_completion_tokens' | 'max_tokens';

/**
 * Pure: the field a Chat Completions upstream reads the output limit from: the channel's
 * `settings.max_tokens_field` when it names one (an Azure deployment named otherwise, a compatible server
 * that reads only `max_tokens`), else by the model's name — OpenAI's reasoning and GPT-5 models refuse
 * `max_tokens` and take `max_completion_tokens`; DeepSeek and most compatible servers read only `max_tokens`.
 */
export function chatOutputLimitField(model: string, setting?: unknown): ChatOutputLimitField {
  if (setting === 'max_tokens' || setting === 'max_completion_tokens') return setting;
  return /^(o\d|gpt-5)/.test(model) ? 'max_completion_tokens' : 'max_tokens';
}
