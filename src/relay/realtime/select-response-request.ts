import { isRecord } from '../../convert/shared/is-record.js';
import { metadataKey, type ResponseRequest } from './read-response-request.js';

/**
 * What an upstream `response.created` says of the request it answers (OpenAI's `RealtimeResponse`): its
 * `conversation_id` — null for an out-of-band response (`conversation: "none"`), a `conv_…` id for one in
 * the default conversation, which is where server VAD puts the responses it makes — and the `metadata` the
 * request gave (`null` for none, and for server VAD's). Undefined where the event leaves the field out.
 */
export interface CreatedResponse {
  conversationId: string | null | undefined;
  metadata: string | null | undefined;
}

/** Pure: the fields of a `response.created` that tell which request it answers. */
export function readCreatedResponse(event: unknown): CreatedResponse {
  const response = isRecord(event) && isRecord(event.response) ? event.response : {};
  const conversationId = response.conversation_id;
  return {
    conversationId: conversationId === null || typeof conversationId === 'string' ? conversationId : undefined,
    metadata: 'metadata' in response ? metadataKey(response.metadata) : undefined,
  };
}

/**
 * Pure: which of the `response.create` events still waiting for their `response.created` (oldest first) a
 * created response answers — the oldest whose conversation (out of band or not) and metadata it echoes —
 * or undefined when it answers none: under server VAD the upstream makes responses of its own, in the
 * default conversation with no metadata, and one made while an out-of-band request waits must not take
 * that request's input (nor leave it the conversation's). A response no waiting request matches is still
 * a client's when server VAD cannot have made it (out of band, or with metadata): the oldest request of
 * its conversation, else the oldest. A `response.created` without those fields answers the oldest.
 */
export function selectResponseRequest(requested: readonly ResponseRequest[], created: CreatedResponse): number | undefined {
  const waiting = requested.map((_, index) => index);
  const { conversationId, metadata } = created;
  const sameConversation = conversationId === undefined ? waiting : waiting.filter((index) => requested[index]?.outOfBand === (conversationId === null));
  const matching = metadata === undefined ? sameConversation : sameConversation.filter((index) => requested[index]?.metadata === metadata);
  if (matching.length > 0) return matching[0];
  const askedByClient = conversationId === null || typeof metadata === 'string';
  return askedByClient ? (sameConversation[0] ?? waiting[0]) : undefined;
}
