import { isRecord } from '../../convert/shared/is-record.js';
import { maxConversationInputChars } from './conversation-input.js';
import { conversationItemText } from './read-conversation-input.js';

/** The audio append as a frame begins when `type` is its first key (the openai SDK's serialization). */
const audioAppendPrefix = Buffer.from('{"type":"input_audio_buffer.append"');

/**
 * What a client's `response.create` says billing needs: its `event_id` (which an upstream `error` refusing
 * it names) and, when it gives the response an `input` of its own (a context instead of the default
 * conversation), the text of that input's items; undefined when the response reads the conversation.
 */
export interface ResponseRequest {
  eventId: string | undefined;
  ownInputText: string | undefined;
}

/**
 * Pure: whether a client's text frame asks for a response (`response.create`), and what it says of it, or
 * undefined when it does not. The client's audio appends — most of what it sends — are known by their first
 * bytes and never parsed; every other frame is parsed and read by its `type` (text anywhere else in it
 * cannot pass for the event).
 */
export function readResponseRequest(frame: Buffer): ResponseRequest | undefined {
  if (frame.length >= audioAppendPrefix.length && frame.compare(audioAppendPrefix, 0, audioAppendPrefix.length, 0, audioAppendPrefix.length) === 0) return undefined;
  let event: unknown;
  try {
    event = JSON.parse(frame.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(event) || event.type !== 'response.create') return undefined;
  const input = isRecord(event.response) ? event.response.input : undefined;
  // Every item of an input the client wrote is its own, assistant messages too.
  // Kept until the response is created: no more than a conversation is (the rest would be truncated upstream).
  const ownInputText = Array.isArray(input) ? input.map((item) => conversationItemText(item, true)).filter((text) => text !== '').join('\n').slice(-maxConversationInputChars) : undefined;
  return { eventId: typeof event.event_id === 'string' ? event.event_id : undefined, ownInputText };
}
