import { isRecord } from '../../convert/shared/is-record.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { PromptTokens } from '../estimate-prompt-tokens.js';
import type { RememberedResponse, ResponseMemory } from './response-memory.js';

/** The stored state a Responses request builds on: the response it continues, the conversation it is part of. */
export interface ContinuationIds {
  previousResponseId: string | undefined;
  conversationId: string | undefined;
}

/** The longest id remembered: OpenAI's are ~50 characters; a client's 4 MB "id" must not become a key. */
export const maxRememberedIdLength = 256;

const rememberable = (id: unknown): id is string => typeof id === 'string' && id !== '' && id.length <= maxRememberedIdLength;

/** Pure: `previous_response_id` and `conversation` (an id, or `{ id }`) of a Responses body, when they can be remembered. */
export function continuationIdsOf(body: Record<string, unknown>): ContinuationIds {
  const previous = body.previous_response_id;
  const conversation = isRecord(body.conversation) ? body.conversation.id : body.conversation;
  return {
    previousResponseId: rememberable(previous) ? previous : undefined,
    conversationId: rememberable(conversation) ? conversation : undefined,
  };
}

/**
 * What the gateway remembers of the state a request continues, or undefined when it knows none (a response
 * made before a restart, or by a replica that shares no Redis with this one: the request is then routed
 * and reserved as if it carried no history). A response or conversation another user made is refused as
 * OpenAI refuses an unknown one: the id alone must not open someone else's history.
 */
export async function recallContinuation(memory: ResponseMemory, ids: ContinuationIds, userId: number): Promise<RememberedResponse | undefined> {
  if (ids.previousResponseId === undefined && ids.conversationId === undefined) return undefined;
  const [previous, conversation] = await Promise.all([
    ids.previousResponseId === undefined ? undefined : memory.recall(ids.previousResponseId),
    ids.conversationId === undefined ? undefined : memory.recall(ids.conversationId),
  ]);
  if (previous !== undefined && previous.userId !== userId) {
    throw new GatewayError('invalid_request', `Previous response with id '${ids.previousResponseId}' not found.`, { param: 'previous_response_id' });
  }
  if (conversation !== undefined && conversation.userId !== userId) {
    throw new GatewayError('invalid_request', `Conversation with id '${ids.conversationId}' not found.`, { param: 'conversation' });
  }
  if (previous === undefined) return conversation;
  if (conversation === undefined) return previous;
  // Both name a history the upstream reads back: the larger is what the reservation must cover.
  return previous.contextTokens >= conversation.contextTokens ? previous : conversation;
}

export interface ServedAnswer {
  /** The upstream's id of the answer (empty or undefined: nothing to remember it by). */
  responseId: string | undefined;
  channelId: number;
  /** The fingerprint of the channel key that made it (its account stores it). */
  keyFingerprint: string;
  userId: number;
  /** The answer's input and output: the context a continuation reads back. */
  contextTokens: number;
}

/**
 * Remembers a served Responses answer under its id — unless the request asked the upstream not to store it
 * (`store: false`: nothing can continue it) — and under its conversation's id, whose next turn reads back
 * what this one read and wrote.
 */
export function rememberAnswer(memory: ResponseMemory, ids: ContinuationIds, stored: boolean, answer: ServedAnswer): void {
  const entry: RememberedResponse = { channelId: answer.channelId, keyFingerprint: answer.keyFingerprint, userId: answer.userId, contextTokens: answer.contextTokens };
  if (stored && rememberable(answer.responseId)) memory.remember(answer.responseId, entry);
  if (ids.conversationId !== undefined) memory.remember(ids.conversationId, entry);
}

/** Pure: a prompt's counts with the stored context the upstream reads back before it. */
export function withContext(prompt: PromptTokens, contextTokens: number): PromptTokens {
  if (contextTokens === 0) return prompt;
  return {
    ...prompt,
    estimatedPromptTokens: prompt.estimatedPromptTokens + contextTokens,
    countPromptTokens: () => prompt.countPromptTokens().then((tokens) => tokens + contextTokens),
  };
}
