import { isAscii } from 'node:buffer';
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

/** What an audio output delta carries for billing: its response and the bytes of audio in its base64 `delta`. */
export interface AudioDelta {
  responseId: string | undefined;
  bytes: number;
}

/** Pure: an audio output delta (GA `response.output_audio.delta`, beta `response.audio.delta`): its response and how many bytes of audio its base64 `delta` carries. */
export function audioDeltaOf(event: unknown): AudioDelta | undefined {
  if (!isRecord(event) || typeof event.type !== 'string' || !audioDeltaTypes.has(event.type) || typeof event.delta !== 'string') return undefined;
  return { responseId: typeof event.response_id === 'string' ? event.response_id : undefined, bytes: base64ByteLength(event.delta) };
}

/** The two audio delta types as a frame begins when `type` is its first key (OpenAI's serialization). */
const audioDeltaPrefixes = [Buffer.from('{"type":"response.output_audio.delta"'), Buffer.from('{"type":"response.audio.delta"')];
const deltaKey = Buffer.from('"delta":"');
const quote = 0x22;
const backslash = 0x5c;
const equals = 0x3d;

/**
 * Pure: an upstream text frame's audio delta read from its bytes — most of a session's bytes (tens of KB
 * of base64 each), so its `delta` is neither decoded to a string nor parsed: only the rest of the frame is
 * parsed (with an empty `delta` in its place), so every other field reads as `JSON.parse` reads it.
 * Undefined when the frame does not begin as an audio delta (`type` its first key, as OpenAI sends it) or
 * its `delta` does not look like base64 (no quote or backslash in it, ASCII, its key found once): the caller
 * then parses the whole frame, as for any other event (`audioDeltaOf`).
 */
export function readAudioDeltaFrame(frame: Buffer): AudioDelta | undefined {
  const prefix = audioDeltaPrefixes.find((candidate) => frame.length > candidate.length && frame.compare(candidate, 0, candidate.length, 0, candidate.length) === 0);
  if (prefix === undefined) return undefined;
  const keyAt = frame.indexOf(deltaKey, prefix.length);
  if (keyAt < 0) return undefined;
  const start = keyAt + deltaKey.length;
  const end = frame.indexOf(quote, start);
  if (end < 0) return undefined;
  // A backslash in the value is an escape JSON.parse would read otherwise (base64 has none).
  const escape = frame.indexOf(backslash, start);
  if ((escape >= 0 && escape < end) || !isAscii(frame.subarray(start, end))) return undefined;
  const rest = Buffer.concat([frame.subarray(0, start), frame.subarray(end)]).toString('utf8');
  // The key found must be the only `delta` (a later one would be the one JSON.parse keeps).
  if (rest.indexOf('"delta"') !== rest.lastIndexOf('"delta"')) return undefined;
  let event: unknown;
  try {
    event = JSON.parse(rest);
  } catch {
    return undefined;
  }
  if (!isRecord(event) || typeof event.type !== 'string' || !audioDeltaTypes.has(event.type) || event.delta !== '') return undefined;
  // The byte before the value is its opening quote: an empty value or a lone `=` reads no second `=`.
  const padding = frame[end - 1] !== equals ? 0 : frame[end - 2] === equals ? 2 : 1;
  return { responseId: typeof event.response_id === 'string' ? event.response_id : undefined, bytes: decodedBase64Length(end - start, padding) };
}

/** Pure: the bytes a base64 text decodes to, without decoding it. */
export function base64ByteLength(base64: string): number {
  const { length } = base64;
  // charCodeAt before the start is NaN: no `=`.
  const padding = base64.charCodeAt(length - 1) !== equals ? 0 : base64.charCodeAt(length - 2) === equals ? 2 : 1;
  return decodedBase64Length(length, padding);
}

/** Pure: the bytes `length` base64 characters decode to, `padding` of them (at most two) trailing `=`. */
function decodedBase64Length(length: number, padding: number): number {
  return Math.max(0, Math.floor((length * 3) / 4) - padding);
}

function outputFormatRate(holder: Record<string, unknown>): number | undefined {
  const output = isRecord(holder.audio) && isRecord(holder.audio.output) ? holder.audio.output : undefined;
  if (output !== undefined && 'format' in output) return audioBytesPerSecondOf(output.format);
  return 'output_audio_format' in holder ? audioBytesPerSecondOf(holder.output_audio_format) : undefined;
}
