import { isRecord } from '../../convert/shared/is-record.js';

/**
 * OpenAI bills a Realtime response's audio output at 1 token per 50 ms of audio ("audio tokens in assistant
 * messages are 1 token per 50ms of audio", developers.openai.com/api/docs/guides/realtime-costs).
 */
export const outputAudioTokensPerSecond = 20;

/** pcm16 at 24 kHz mono (GA `audio/pcm`, beta `pcm16`): OpenAI's default output format. */
export const defaultAudioBytesPerSecond = 48_000;

/** G.711 µ-law / A-law: 8 kHz, one byte a sample. */
const g711BytesPerSecond = 8_000;

const audioDeltaTypes = new Set(['response.output_audio.delta', 'response.audio.delta']);

/**
 * Pure: the bytes a second of audio takes in a Realtime audio format — GA `{ type: 'audio/pcm', rate }`,
 * `{ type: 'audio/pcmu' }`, `{ type: 'audio/pcma' }`; beta `'pcm16'`, `'g711_ulaw'`, `'g711_alaw'` —
 * or undefined for a format it does not know.
 */
export function audioBytesPerSecondOf(format: unknown): number | undefined {
  if (format === 'pcm16') return defaultAudioBytesPerSecond;
  if (format === 'g711_ulaw' || format === 'g711_alaw') return g711BytesPerSecond;
  if (!isRecord(format)) return undefined;
  if (format.type === 'audio/pcmu' || format.type === 'audio/pcma') return g711BytesPerSecond;
  if (format.type !== 'audio/pcm') return undefined;
  // 16-bit samples, mono; GA documents 24 kHz as the only rate.
  return typeof format.rate === 'number' && Number.isFinite(format.rate) && format.rate > 0 ? format.rate * 2 : defaultAudioBytesPerSecond;
}

/**
 * Pure: the output audio format a `session.created` / `session.updated` event names (GA
 * `session.audio.output.format`, beta `session.output_audio_format`), as bytes a second; undefined when it
 * is no such event or names none it knows.
 */
export function sessionOutputAudioRate(event: unknown): number | undefined {
  if (!isRecord(event) || (event.type !== 'session.created' && event.type !== 'session.updated') || !isRecord(event.session)) return undefined;
  return outputFormatRate(event.session);
}

/**
 * Pure: the output audio format a `response.created` names for its response (GA
 * `response.audio.output.format`, beta `response.output_audio_format`: a `response.create` may set its
 * own), as bytes a second; undefined when it names none it knows.
 */
export function responseOutputAudioRate(event: unknown): number | undefined {
  if (!isRecord(event) || event.type !== 'response.created' || !isRecord(event.response)) return undefined;
  return outputFormatRate(event.response);
}

/** Pure: an audio output delta (GA `response.output_audio.delta`, beta `response.audio.delta`): its response and how many bytes of audio its base64 `delta` carries. */
export function audioDeltaOf(event: unknown): { responseId: string | undefined; bytes: number } | undefined {
  if (!isRecord(event) || typeof event.type !== 'string' || !audioDeltaTypes.has(event.type) || typeof event.delta !== 'string') return undefined;
  return { responseId: typeof event.response_id === 'string' ? event.response_id : undefined, bytes: base64ByteLength(event.delta) };
}

/** Pure: the bytes a base64 text decodes to, without decoding it. */
export function base64ByteLength(base64: string): number {
  let padding = 0;
  while (padding < 2 && base64.endsWith('='.repeat(padding + 1))) padding += 1;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

function outputFormatRate(holder: Record<string, unknown>): number | undefined {
  const output = isRecord(holder.audio) && isRecord(holder.audio.output) ? holder.audio.output : undefined;
  if (output !== undefined && 'format' in output) return audioBytesPerSecondOf(output.format);
  return 'output_audio_format' in holder ? audioBytesPerSecondOf(holder.output_audio_format) : undefined;
}
