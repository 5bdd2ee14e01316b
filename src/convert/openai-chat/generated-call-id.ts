/**
 * Pure: an id for a tool call a compatible Chat server sent without one, the same for the streamed and the
 * whole answer. Short enough for OpenAI, which refuses a replayed `tool_calls[].id` over 40 characters:
 * `call_`, the call's index and the answer id's last 24 letters and digits (response ids end in their random part).
 */
export function generatedCallId(responseId: string, index: number): string {
  const tail = responseId.replace(/[^A-Za-z0-9]/g, '').slice(-24);
  return `call_${index}_${tail === '' ? 'x' : tail}`.slice(0, 40);
}
