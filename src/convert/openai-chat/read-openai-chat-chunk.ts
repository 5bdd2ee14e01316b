/**
 * A `chat.completion.chunk` (platform.openai.com/docs/api-reference/chat-streaming), read by hand rather than
 * through zod because this runs for every chunk of every stream: on the recorded OpenAI stream a zod schema
 * took the decoder from about 10 µs per event (7 of them JSON.parse) to 22 µs or more. Fields of the wrong
 * type read as absent; only a chunk that is not an object, or whose `choices` is not an array, is refused.
 */
export interface OpenaiChatChunk {
  id: string | undefined;
  created: number | undefined;
  model: string | undefined;
  choices: OpenaiChatChunkChoice[];
  usage: unknown;
}

export interface OpenaiChatChunkChoice {
  index: number;
  /** DeepSeek sends `reasoning_content`; OpenRouter and vLLM `reasoning`. */
  delta: { content?: string; reasoning?: string; refusal?: string; toolCalls: OpenaiChatToolCallDelta[] };
  finishReason: string | undefined;
}

export interface OpenaiChatToolCallDelta {
  index: number | undefined;
  id: string | undefined;
  name: string | undefined;
  arguments: string | undefined;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

function readToolCall(value: unknown): OpenaiChatToolCallDelta {
  const call = isObject(value) ? value : {};
  const fn = isObject(call.function) ? call.function : {};
  // Some compatibles send the arguments as an object rather than JSON text.
  const args = isObject(fn.arguments) ? JSON.stringify(fn.arguments) : text(fn.arguments);
  return { index: number(call.index), id: text(call.id), name: text(fn.name), arguments: args };
}

function readChoice(value: unknown): OpenaiChatChunkChoice {
  const choice = isObject(value) ? value : {};
  const delta = isObject(choice.delta) ? choice.delta : {};
  const read: OpenaiChatChunkChoice['delta'] = { toolCalls: Array.isArray(delta.tool_calls) ? delta.tool_calls.map(readToolCall) : [] };
  const content = text(delta.content);
  const reasoning = text(delta.reasoning_content) ?? text(delta.reasoning);
  const refusal = text(delta.refusal);
  if (content !== undefined) read.content = content;
  if (reasoning !== undefined) read.reasoning = reasoning;
  if (refusal !== undefined) read.refusal = refusal;
  return { index: number(choice.index) ?? 0, delta: read, finishReason: text(choice.finish_reason) };
}

/** A parsed `data:` payload → a chunk, or undefined when it is none. */
export function readOpenaiChatChunk(json: unknown): OpenaiChatChunk | undefined {
  if (!isObject(json)) return undefined;
  if (json.choices !== undefined && json.choices !== null && !Array.isArray(json.choices)) return undefined;
  return {
    id: text(json.id),
    created: number(json.created),
    model: text(json.model),
    choices: Array.isArray(json.choices) ? json.choices.map(readChoice) : [],
    usage: json.usage,
  };
}
