import { addAudio, type NormalizedUsage } from '../../billing/normalized-usage.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { tokenCountOf } from './read-realtime-usage.js';

/**
 * What a finished input-audio transcription reports (protocols.md §9,
 * `conversation.item.input_audio_transcription.completed`): tokens (the gpt-4o transcribe models: its input
 * is the audio) or the audio's duration (whisper-1).
 */
export type TranscriptionUsage = { kind: 'tokens'; usage: NormalizedUsage } | { kind: 'duration'; seconds: number };

const completedType = 'conversation.item.input_audio_transcription.completed';

/** Pure: the usage a finished transcription reports; undefined for other events, or usage of no known shape. */
export function readTranscriptionUsage(event: unknown): TranscriptionUsage | undefined {
  if (!isRecord(event) || event.type !== completedType || !isRecord(event.usage)) return undefined;
  const usage = event.usage;
  if (usage.type === 'duration') {
    const seconds = usage.seconds;
    return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? { kind: 'duration', seconds } : undefined;
  }
  const input = tokenCountOf(usage.input_tokens);
  const output = tokenCountOf(usage.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const details = isRecord(usage.input_token_details) ? usage.input_token_details : undefined;
  // Without a split, the transcription's input is all audio (what it transcribes).
  const audio = details === undefined ? input : (tokenCountOf(details.audio_tokens) ?? Math.max(0, input - (tokenCountOf(details.text_tokens) ?? 0)));
  return { kind: 'tokens', usage: addAudio({ input: { total: input, cacheRead: 0, cacheWrite: 0 }, output: { total: output, reasoning: 0 } }, audio, 0) };
}

/**
 * Pure: the transcription model a `session.created` / `session.updated` (or the beta
 * `transcription_session.*`) event names: GA `session.audio.input.transcription.model`, beta
 * `session.input_audio_transcription.model`. `null` when the event turns transcription off; undefined
 * when it is not such an event or says nothing about it.
 */
export function sessionTranscriptionModel(event: unknown): string | null | undefined {
  if (!isRecord(event) || typeof event.type !== 'string' || !isRecord(event.session)) return undefined;
  if (!/^(transcription_)?session\.(created|updated)$/.test(event.type)) return undefined;
  const session = event.session;
  const audioInput = isRecord(session.audio) && isRecord(session.audio.input) ? session.audio.input : undefined;
  const setting = audioInput !== undefined && 'transcription' in audioInput ? audioInput.transcription : 'input_audio_transcription' in session ? session.input_audio_transcription : undefined;
  if (setting === null) return null;
  if (!isRecord(setting)) return undefined;
  return typeof setting.model === 'string' && setting.model !== '' ? setting.model : undefined;
}
