/**
 * Pure: whether an OpenAI-style upstream model takes reasoning settings — Chat Completions'
 * `reasoning_effort`, the Responses API's `reasoning` (with `include: reasoning.encrypted_content`). OpenAI
 * answers 400 "Unsupported parameter: 'reasoning_effort' is not supported with this model" (Responses:
 * `reasoning.effort`) for a model that does not reason (gpt-4o, gpt-4.1, gpt-5-chat), as Groq does for its
 * Llama models, so a reasoning setting converted from another style (Anthropic `thinking`, Gemini
 * `thinkingConfig`) would fail the whole request. The channel's `settings.reasoning_effort` (true / false)
 * decides; unset, the model's name does, by the test of the Vercel AI SDK's `isReasoningModel`: the o-series
 * (not o1-mini and o1-preview, which take no effort), GPT-5 and later but its `gpt-5-chat` models, and
 * gpt-oss (vLLM, Groq and OpenRouter take `reasoning_effort` for it), with or without a `vendor/` prefix.
 */
export function takesOpenaiReasoning(model: string, setting?: unknown): boolean {
  if (typeof setting === 'boolean') return setting;
  return reasoningModel.test(model) && !effortlessReasoningModel.test(model);
}

const reasoningModel = /(?:^|\/)(?:o\d|gpt-[5-9](?!-chat)|gpt-oss)/i;
const effortlessReasoningModel = /(?:^|\/)o1-(?:mini|preview)/i;
