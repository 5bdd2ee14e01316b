import { addAudio, type NormalizedUsage } from '../../billing/normalized-usage.js';
import { isRecord } from '../../convert/shared/is-record.js';

/** The upstream frames the gateway reads (all others are relayed unread). */
export type RealtimeFrameKind = 'response.created' | 'response.done' | 'text.delta' | 'transcription.completed' | 'session' | undefined;

const textDeltaTypes = new Set(['response.output_text.delta', 'response.text.delta', 'response.output_audio_transcript.delta', 'response.audio_transcript.delta']);

/**
 * Pure: which kind of frame this is, from its bytes (no parse for the frames the gateway does not read:
 * audio deltas are most of a session's bytes). The kind is a guess the parsed `type` confirms.
 */
export function realtimeFrameKind(frame: Buffer): RealtimeFrameKind {
  if (frame.includes('"response.')) {
    if (frame.includes('"response.done"')) return 'response.done';
    if (frame.includes('"response.created"')) return 'response.created';
    // Audio deltas (most of a session's bytes) are not parsed: only text and transcript ones are counted.
    if (frame.includes('audio.delta"')) return undefined;
    if (frame.includes('text.delta"') || frame.includes('transcript.delta"')) return 'text.delta';
  }
  if (frame.includes('input_audio_transcription.completed"')) return 'transcription.completed';
  if (frame.includes('session.created"') || frame.includes('session.updated"')) return 'session';
  return undefined;
}

/** Pure: a parsed event's text (or transcript) delta, when it is one. */
export function textDeltaOf(event: unknown): string | undefined {
  if (!isRecord(event) || typeof event.type !== 'string' || !textDeltaTypes.has(event.type)) return undefined;
  return typeof event.delta === 'string' ? event.delta : undefined;
}

/**
 * Pure: the usage a `response.done` reports (protocols.md §9): `input_tokens` (cached ones read from
 * `input_token_details.cached_tokens`), `output_tokens`, and the audio among them
 * (`input_token_details.audio_tokens` less the cached audio of `cached_tokens_details.audio_tokens`,
 * `output_token_details.audio_tokens`). Undefined when it reports none or of another shape.
 */
export function readRealtimeUsage(event: unknown): NormalizedUsage | undefined {
  if (!isRecord(event) || event.type !== 'response.done' || !isRecord(event.response)) return undefined;
  const usage = event.response.usage;
  if (!isRecord(usage)) return undefined;
  const count = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);
  const input = count(usage.input_tokens);
  const output = count(usage.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const inputDetails = isRecord(usage.input_token_details) ? usage.input_token_details : {};
  const cached = Math.min(input, count(inputDetails.cached_tokens) ?? 0);
  const cachedAudio = isRecord(inputDetails.cached_tokens_details) ? (count(inputDetails.cached_tokens_details.audio_tokens) ?? 0) : 0;
  const audioIn = Math.max(0, (count(inputDetails.audio_tokens) ?? 0) - cachedAudio);
  const audioOut = isRecord(usage.output_token_details) ? (count(usage.output_token_details.audio_tokens) ?? 0) : 0;
  return addAudio({ input: { total: input, cacheRead: cached, cacheWrite: 0 }, output: { total: output, reasoning: 0 } }, audioIn, audioOut);
}
