/**
 * Pure: an id for a tool call a compatible Chat server sent without one (or with one already used in the
 * same answer), the same way for the streamed and the whole answer. Short enough for OpenAI, which refuses a
 * replayed `tool_calls[].id` over 40 characters: `call_`, the call's index, the answer's `nonce` (a server
 * may give every answer the same id, and a history replaying two of them needs distinct ids: Anthropic
 * refuses repeated tool_use ids) and the answer id's last letters and digits.
 */
export function generatedCallId(responseId: string, index: number, nonce: string): string {
  const tail = responseId.replace(/[^A-Za-z0-9]/g, '').slice(-20);
  return `call_${index}_${nonce}${tail}`.slice(0, 40);
}
