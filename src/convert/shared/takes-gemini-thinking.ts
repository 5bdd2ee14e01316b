/**
 * Pure: whether a Gemini upstream model takes `generationConfig.thinkingConfig`. Thinking is configurable
 * from Gemini 2.5 on; Gemini 2.0 and 1.x answer 400 ("thinking_config is not supported.", "Thinking is
 * not enabled for models/…"), gemini-2.0-flash-thinking-exp included (it thinks, but takes no
 * thinkingConfig, `includeThoughts` refused), so a reasoning setting converted from another style (OpenAI
 * `reasoning_effort` / `reasoning`, Anthropic `thinking`) would fail the whole request. The channel's
 * `settings.reasoning_effort` (true / false) decides; unset, the model's name does: only those older names
 * (and Gemini 1.0's `gemini-pro`, `gemini-pro-vision`, `gemini-ultra`), with or without a `models/` or
 * `vendor/` prefix, are refused, since any other is most likely a newer model.
 */
export function takesGeminiThinking(model: string, setting?: unknown): boolean {
  if (typeof setting === 'boolean') return setting;
  return !thinklessGemini.test(model);
}

const thinklessGemini = /(?:^|\/)gemini-(?:1\.\d|2\.0(?!\d)|pro(?:-vision)?$|ultra)/i;
