import { isRecord } from '../../convert/shared/is-record.js';

/** The audio append as a frame begins when `type` is its first key (the openai SDK's serialization). */
const audioAppendPrefix = Buffer.from('{"type":"input_audio_buffer.append"');

/**
 * Pure: whether a client's text frame asks for a response (`response.create`), with the client's
 * `event_id` (which an upstream `error` refusing it names), or undefined when it does not. The client's
 * audio appends — most of what it sends — are known by their first bytes and never parsed; every other
 * frame is parsed and read by its `type` (text anywhere else in it cannot pass for the event).
 */
export function readResponseRequest(frame: Buffer): { eventId: string | undefined } | undefined {
  if (frame.length >= audioAppendPrefix.length && frame.compare(audioAppendPrefix, 0, audioAppendPrefix.length, 0, audioAppendPrefix.length) === 0) return undefined;
  let event: unknown;
  try {
    event = JSON.parse(frame.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(event) || event.type !== 'response.create') return undefined;
  return { eventId: typeof event.event_id === 'string' ? event.event_id : undefined };
}
