/**
 * Pure: whether an Anthropic upstream model takes `thinking`. Extended thinking exists from Claude Sonnet
 * 3.7 on (claude-3-7-sonnet, claude-sonnet-4*, claude-opus-4*, claude-haiku-4-5 and later: Anthropic's
 * "Extended thinking models"); Claude 3.5 and older (claude-3-5-sonnet / -haiku, claude-3-opus / -sonnet /
 * -haiku, claude-2, claude-instant) have none and refuse the block with a 400, so a reasoning setting
 * converted from another style (OpenAI `reasoning_effort` / `reasoning`, Gemini `thinkingConfig`) would fail
 * the whole request. The channel's `settings.reasoning_effort` (true / false) decides; unset, the model's
 * name does: only those older names (with or without a `vendor/` or Bedrock `anthropic.` prefix, `3.5` or
 * `3-5`) are refused, since any other is most likely a newer model (or a compatible server's, as before).
 */
export function takesAnthropicThinking(model: string, setting?: unknown): boolean {
  if (typeof setting === 'boolean') return setting;
  return !thinklessClaude.test(model);
}

const thinklessClaude = /(?:^|[/.])claude-(?:instant|2(?!\d)|3-(?:opus|sonnet|haiku)|3[-.]5-)/i;
