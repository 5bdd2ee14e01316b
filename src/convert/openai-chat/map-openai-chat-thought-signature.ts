/**
 * Chat Completions has no field for a reasoning signature. Google's OpenAI-compatible Gemini endpoint writes
 * a function call's thought signature on the tool call itself, `tool_calls[i].extra_content.google.thought_signature`
 * (ai.google.dev/gemini-api/docs/thought-signatures, "OpenAI compatibility"), and clients written for it send
 * it back there; the openai SDK keeps the field (it copies a tool call's unknown fields, whole and streamed).
 */
export function formatOpenaiChatThoughtSignature(signature: string): { extra_content: { google: { thought_signature: string } } } {
  return { extra_content: { google: { thought_signature: signature } } };
}

/** A replayed tool call's thought signature, if it carries one. */
export function parseOpenaiChatThoughtSignature(call: Record<string, unknown>): string | undefined {
  const extra = call.extra_content;
  if (extra === null || typeof extra !== 'object') return undefined;
  const google = (extra as Record<string, unknown>).google;
  if (google === null || typeof google !== 'object') return undefined;
  const signature = (google as Record<string, unknown>).thought_signature;
  return typeof signature === 'string' && signature !== '' ? signature : undefined;
}
