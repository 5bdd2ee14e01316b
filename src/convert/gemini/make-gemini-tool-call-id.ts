/**
 * Older Gemini models send function calls without ids. Canonical calls need one, and it must stay unique
 * across the turns of a conversation: Anthropic refuses a history whose `tool_use` ids repeat ("tool_use ids
 * must be unique"), which ids counted from zero in every response would do. So the response id takes part
 * when there is one; an answer without `responseId` (some Gemini-compatible servers, proxies) uses the
 * answer's `nonce` (`newCallIdNonce`) instead, else two turns would both call their first call `call_0`. The
 * result is safe in Anthropic's `[A-Za-z0-9_-]`. Ids for a client's own id-less history (one request, counted
 * across it) pass `nonce: ''`.
 */
export function makeGeminiToolCallId(responseId: string | undefined, index: number, nonce: string): string {
  const scope = responseId?.replace(/[^A-Za-z0-9_-]/g, '') || nonce;
  return scope === '' ? `call_${index}` : `call_${scope}_${index}`;
}
