/** Where a Chat answer's text goes for the local count: `audio` marks the transcript of spoken output. */
export type NoteOutputText = (text: string, audio: boolean) => void;

/**
 * The text of a Chat Completions message (a whole answer's `message`) or of a stream's `delta` that its
 * upstream bills as output, for the local count of an answer without usage (tool calls are the caller's:
 * a stream counts their fragments, a whole answer their JSON). Each field is what some upstream sends:
 * `content`; `refusal` (OpenAI's structured-output refusals); the reasoning text, DeepSeek's
 * `reasoning_content` or else OpenRouter's and vLLM's `reasoning` (one of them, as the converters read it,
 * `read-openai-chat-chunk.ts`: a server that writes both carries the same text twice); the legacy
 * `function_call`; and
 * `audio.transcript`, the text of the speech an audio model (gpt-4o-audio-preview) made, noted as audio.
 */
export function noteChatMessageText(message: Record<string, unknown>, note: NoteOutputText): void {
  const { content, refusal, reasoning_content: reasoningContent, reasoning, function_call: functionCall, audio } = message;
  if (typeof content === 'string') note(content, false);
  if (typeof refusal === 'string') note(refusal, false);
  if (typeof reasoningContent === 'string' && reasoningContent !== '') note(reasoningContent, false);
  else if (typeof reasoning === 'string') note(reasoning, false);
  if (functionCall !== null && typeof functionCall === 'object') {
    const { name, arguments: args } = functionCall as Record<string, unknown>;
    if (typeof name === 'string') note(name, false);
    if (typeof args === 'string') note(args, false);
  }
  if (audio !== null && typeof audio === 'object') {
    const { transcript } = audio as Record<string, unknown>;
    if (typeof transcript === 'string') note(transcript, true);
  }
}
