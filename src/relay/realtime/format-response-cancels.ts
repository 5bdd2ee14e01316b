/**
 * Pure: the `response.cancel` events that stop every response under way — one per response, by its id, and
 * one without an id for any whose id was never seen. OpenAI applies a cancel without `response_id` only to
 * the default conversation's response ("Cancels an in-progress response… in the default conversation"):
 * an out-of-band response (`conversation: "none"`) left running would be billed only as cut.
 */
export function formatResponseCancels(responseIds: readonly (string | undefined)[]): string[] {
  const frames = new Set<string>();
  for (const id of responseIds) frames.add(id === undefined ? '{"type":"response.cancel"}' : JSON.stringify({ type: 'response.cancel', response_id: id }));
  return [...frames];
}
