import { isRecord } from '../../convert/shared/is-record.js';
import { maxConversationInputChars } from './conversation-input.js';
import { conversationItemText } from './read-conversation-input.js';

/** The audio append as a frame begins when `type` is its first key (the openai SDK's serialization). */
const audioAppendPrefix = Buffer.from('{"type":"input_audio_buffer.append"');

/**
 * What a client's `response.create` says billing needs: its `event_id` (which an upstream `error` refusing
 * it names), when it gives the response an `input` of its own (a context instead of the default
 * conversation) the text of that input's items (undefined when the response reads the conversation), and
 * what the upstream's `response.created` echoes of it — whether it is out of band (`conversation: "none"`,
 * answered with `conversation_id: null`) and its `metadata` — so that the response it asked for is told
 * from one server VAD made meanwhile (select-response-request.ts).
 */
export interface ResponseRequest {
  eventId: string | undefined;
  ownInputText: string | undefined;
  outOfBand: boolean;
  /** Its `metadata` as `metadataKey` writes it; null when it gives none (the upstream then echoes `null`). */
  metadata: string | null;
}

/**
 * Pure: a `metadata` value as one comparable text — an object's string entries sorted by key, so the one a
 * client sent and the one the upstream echoes compare equal whatever their key order; null for `null` and
 * undefined for anything else (absent, not an object).
 */
export function metadataKey(metadata: unknown): string | null | undefined {
  if (metadata === null) return null;
  if (!isRecord(metadata)) return undefined;
  return JSON.stringify(Object.entries(metadata).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)));
}

/**
 * Pure: a client's text frame as the event it is, or undefined for one that is not a JSON object. The
 * client's audio appends — most of what it sends — are known by their first bytes and never parsed.
 */
export function parseClientEvent(frame: Buffer): Record<string, unknown> | undefined {
  if (frame.length >= audioAppendPrefix.length && frame.compare(audioAppendPrefix, 0, audioAppendPrefix.length, 0, audioAppendPrefix.length) === 0) return undefined;
  let event: unknown;
  try {
    event = JSON.parse(frame.toString('utf8'));
  } catch {
    return undefined;
  }
  return isRecord(event) ? event : undefined;
}

/**
 * Pure: whether a client's text frame asks for a response (`response.create`), and what it says of it, or
 * undefined when it does not. Read by its `type` (text anywhere else in it cannot pass for the event).
 */
export function readResponseRequest(frame: Buffer): ResponseRequest | undefined {
  const event = parseClientEvent(frame);
  return event === undefined ? undefined : responseRequestOf(event);
}

/** Pure: {@link readResponseRequest} of an event already parsed. */
export function responseRequestOf(event: Record<string, unknown>): ResponseRequest | undefined {
  if (event.type !== 'response.create') return undefined;
  const response = isRecord(event.response) ? event.response : {};
  const input = response.input;
  // Every item of an input the client wrote is its own, assistant messages too.
  // Kept until the response is created: no more than a conversation is (the rest would be truncated upstream).
  const ownInputText = Array.isArray(input) ? input.map((item) => conversationItemText(item, true)).filter((text) => text !== '').join('\n').slice(-maxConversationInputChars) : undefined;
  return { eventId: typeof event.event_id === 'string' ? event.event_id : undefined, ownInputText, outOfBand: response.conversation === 'none', metadata: metadataKey(response.metadata) ?? null };
}
