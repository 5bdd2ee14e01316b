/**
 * Pure: whether an OpenAI-style upstream model takes reasoning settings — Chat Completions'
 * `reasoning_effort`, the Responses API's `reasoning` (with `include: reasoning.encrypted_content`). OpenAI
 * answers 400 "Unsupported parameter: 'reasoning_effort' is not supported with this model" (Responses:
 * `reasoning.effort`) for a model that does not reason (gpt-4o, gpt-4.1, gpt-5-chat), as Groq does for its
 * Llama models, so a reasoning setting converted from another style (Anthropic `thinking`, Gemini
 * `thinkingConfig`) would fail the whole request. The channel's `settings.reasoning_effort` (true / false)
 * decides; unset, the model's name does, by the test of the Vercel AI SDK's `isReasoningModel`: the o-series
 * (not o1-mini and o1-preview, which take no effort; the o3 / o4-mini deep-research models are o-series),
 * GPT-5 and later but its `gpt-5-chat` models, `codex-mini` (`codex-mini-latest`, the Responses-only Codex
 * model fine-tuned from o4-mini: low, medium, high), and gpt-oss (vLLM, Groq and OpenRouter take
 * `reasoning_effort` for it), with or without a `vendor/` prefix.
 *
 * Left out on purpose, the channel setting deciding: `computer-use-preview` (the AI SDK counts it a
 * reasoning model for its `developer` role, but OpenAI's docs list it as no reasoning model and whether it
 * takes an effort could not be checked: sent one it might refuse the whole request), and fine-tuned names
 * (`ft:o4-mini-…`: whether a fine-tuned model takes an effort could not be checked either).
 */
export function takesOpenaiReasoning(model: string, setting?: unknown): boolean {
  if (typeof setting === 'boolean') return setting;
  return reasoningModel.test(model) && !effortlessReasoningModel.test(model);
}

const reasoningModel = /(?:^|\/)(?:o\d|gpt-[5-9](?!-chat)|gpt-oss|codex-mini)/i;
const effortlessReasoningModel = /(?:^|\/)o1-(?:mini|preview)/i;
