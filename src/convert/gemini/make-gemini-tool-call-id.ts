/**
 * Older Gemini models send function calls without ids. Canonical calls need one, and it must stay unique
 * across the turns of a conversation: Anthropic refuses a history whose `tool_use` ids repeat ("tool_use ids
 * must be unique"), which ids counted from zero in every response would do. So the response id takes part
 * when there is one; the result is deterministic for one response and safe in Anthropic's `[A-Za-z0-9_-]`.
 */
export function makeGeminiToolCallId(responseId: string | undefined, index: number): string {
  const scope = responseId?.replace(/[^A-Za-z0-9_-]/g, '') ?? '';
  return scope === '' ? `call_${index}` : `call_${scope}_${index}`;
}
