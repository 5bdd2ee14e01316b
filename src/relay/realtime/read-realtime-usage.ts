import { addAudio, addImages, type NormalizedUsage } from '../../billing/normalized-usage.js';
import { isRecord } from '../../convert/shared/is-record.js';

const textDeltaTypes = new Set([
  'response.output_text.delta',
  'response.text.delta',
  'response.output_audio_transcript.delta',
  'response.audio_transcript.delta',
  // A response cut while it writes a tool call is billed the arguments it wrote too.
  'response.function_call_arguments.delta',
]);

/** Pure: a parsed event's text (or transcript, or tool-call arguments) delta and the response it belongs to, when it is one. */
export function textDeltaOf(event: unknown): { responseId: string | undefined; text: string } | undefined {
  if (!isRecord(event) || typeof event.type !== 'string' || !textDeltaTypes.has(event.type) || typeof event.delta !== 'string') return undefined;
  return { responseId: typeof event.response_id === 'string' ? event.response_id : undefined, text: event.delta };
}

/** Pure: the id of the response a `response.created` / `response.done` event is about. */
export function responseIdOf(event: unknown): string | undefined {
  if (!isRecord(event) || !isRecord(event.response)) return undefined;
  return typeof event.response.id === 'string' ? event.response.id : undefined;
}

/** Pure: the client event an upstream `error` event is about (its `error.event_id`), when it names one. */
export function refusedEventIdOf(event: unknown): string | undefined {
  if (!isRecord(event) || event.type !== 'error' || !isRecord(event.error)) return undefined;
  return typeof event.error.event_id === 'string' ? event.error.event_id : undefined;
}

/**
 * Pure: the usage a `response.done` reports (protocols.md §9): `input_tokens` (cached ones read from
 * `input_token_details.cached_tokens`), `output_tokens`, and the audio among them
 * (`input_token_details.audio_tokens` less the cached audio of `cached_tokens_details.audio_tokens`,
 * `output_token_details.audio_tokens`), and the images (`input_token_details.image_tokens` less
 * `cached_tokens_details.image_tokens`). Undefined when it reports none or of another shape.
 */
export function readRealtimeUsage(event: unknown): NormalizedUsage | undefined {
  if (!isRecord(event) || event.type !== 'response.done' || !isRecord(event.response)) return undefined;
  const usage = event.response.usage;
  if (!isRecord(usage)) return undefined;
  const input = tokenCountOf(usage.input_tokens);
  const output = tokenCountOf(usage.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const inputDetails = isRecord(usage.input_token_details) ? usage.input_token_details : {};
  const cached = Math.min(input, tokenCountOf(inputDetails.cached_tokens) ?? 0);
  const cachedDetails = isRecord(inputDetails.cached_tokens_details) ? inputDetails.cached_tokens_details : {};
  const uncached = (name: 'audio_tokens' | 'image_tokens') => Math.max(0, (tokenCountOf(inputDetails[name]) ?? 0) - (tokenCountOf(cachedDetails[name]) ?? 0));
  const audioOut = isRecord(usage.output_token_details) ? (tokenCountOf(usage.output_token_details.audio_tokens) ?? 0) : 0;
  const usageWithAudio = addAudio({ input: { total: input, cacheRead: cached, cacheWrite: 0 }, output: { total: output, reasoning: 0 } }, uncached('audio_tokens'), audioOut);
  return addImages(usageWithAudio, uncached('image_tokens'), 0);
}

/**
 * Pure: a reported token count, or undefined when it is not a number (no usage). A fractional count is
 * floored, as Chat's are; a count no token count can be — negative, or beyond 2^53 — is kept as it came,
 * so that pricing refuses it and the response is charged its hold (realtime-billing.ts), rather than read
 * as no usage and billed the few tokens of its text.
 */
export function tokenCountOf(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return value >= 0 ? Math.floor(value) : value;
}
