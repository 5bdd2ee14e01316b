import { isRecord } from '../../convert/shared/is-record.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { PromptTokens } from '../estimate-prompt-tokens.js';
import type { RememberedResponse, ResponseMemory } from './response-memory.js';

/**
 * The stored state a Responses request builds on: the response it continues, the conversation it is part
 * of, the stored items its input names by id.
 */
export interface ContinuationIds {
  previousResponseId: string | undefined;
  conversationId: string | undefined;
  /**
   * A `conversation` id too long to have been remembered: refused, even when unknown ones may be claimed —
   * it could be neither remembered nor claimed (OpenAI's ids are ~50 characters: it is no conversation).
   */
  unrememberableConversation?: string;
  /**
   * The ids of `input` items: an `item_reference`'s, and any other item's (an earlier output item passed
   * back, `{ type: "reasoning", id: "rs_…" }`, is read back by its id from the account that stored it).
   */
  itemIds: string[];
}

/** The longest id remembered: OpenAI's are ~50 characters; a client's 4 MB "id" must not become a key. */
export const maxRememberedIdLength = 256;

/**
 * The output items of one answer remembered by id: an answer's items are a message, a reasoning item and
 * its tool calls, rarely more; one answer of a thousand hosted tool calls must not take a thousand entries.
 */
export const maxRememberedItemsPerAnswer = 32;

const rememberable = (id: unknown): id is string => typeof id === 'string' && id !== '' && id.length <= maxRememberedIdLength;

/** Pure: the distinct ids `input` items carry, when they can have been remembered. */
function inputItemIdsOf(input: unknown): string[] {
  if (!Array.isArray(input)) return [];
  let ids: Set<string> | undefined;
  for (const item of input) {
    if (isRecord(item) && rememberable(item.id)) (ids ??= new Set()).add(item.id);
  }
  return ids === undefined ? [] : [...ids];
}

/**
 * Pure: `previous_response_id` and `conversation` (an id, or `{ id }`) of a Responses body, and the ids
 * its `input` items carry, when they can be remembered.
 */
export function continuationIdsOf(body: Record<string, unknown>): ContinuationIds {
  const previous = body.previous_response_id;
  const conversation = isRecord(body.conversation) ? body.conversation.id : body.conversation;
  return {
    previousResponseId: rememberable(previous) ? previous : undefined,
    conversationId: rememberable(conversation) ? conversation : undefined,
    ...(typeof conversation === 'string' && conversation.length > maxRememberedIdLength ? { unrememberableConversation: conversation } : {}),
    itemIds: inputItemIdsOf(body.input),
  };
}

/**
 * What the gateway remembers of the state a request continues, or undefined when it knows none (a response
 * made before a restart, or by a replica that shares no Redis with this one: the request is then routed
 * and reserved as if it carried no history). A response, conversation or stored item another user made is
 * refused as OpenAI refuses an unknown one: every user shares the channel's account, so the id alone must
 * not open someone else's history. So is a conversation the gateway does not know, unless
 * `allowUnknownConversations` (it was then made outside the gateway, and becomes its first user's): the
 * gateway makes conversations (`POST /v1/conversations`) and remembers their maker, so an unknown id is
 * someone's guess — refused, with the same words as another user's. `recallConversation` reads a
 * conversation's owner (conversation-owners.ts: the memory, then the table of the conversations the gateway
 * made); by default the memory alone.
 */
export async function recallContinuation(
  memory: ResponseMemory,
  ids: ContinuationIds,
  userId: number,
  allowUnknownConversations: boolean,
  recallConversation: (id: string) => Promise<RememberedResponse | undefined> = (id) => memory.recall(id),
): Promise<RememberedResponse | undefined> {
  // Let through, it reached the conversation on every turn with no owner remembered or claimed.
  if (ids.unrememberableConversation !== undefined) throw unknownConversation(ids.unrememberableConversation);
  if (ids.previousResponseId === undefined && ids.conversationId === undefined && ids.itemIds.length === 0) return undefined;
  const [previous, conversation, items] = await Promise.all([
    ids.previousResponseId === undefined ? undefined : memory.recall(ids.previousResponseId),
    ids.conversationId === undefined ? undefined : recallConversation(ids.conversationId),
    ids.itemIds.length === 0 ? [] : memory.recallEach(ids.itemIds),
  ]);
  if (previous !== undefined && previous.userId !== userId) {
    throw new GatewayError('invalid_request', `Previous response with id '${ids.previousResponseId}' not found.`, { param: 'previous_response_id' });
  }
  if (ids.conversationId !== undefined && (conversation === undefined ? !allowUnknownConversations : conversation.userId !== userId)) throw unknownConversation(ids.conversationId);
  let known = previous ?? conversation;
  // Both name a history the upstream reads back: the larger is what the reservation must cover.
  if (previous !== undefined && conversation !== undefined && conversation.contextTokens > previous.contextTokens) known = conversation;
  for (const [index, item] of items.entries()) {
    if (item === undefined) continue;
    if (item.userId !== userId) throw new GatewayError('invalid_request', `Item with id '${ids.itemIds[index]}' not found.`, { param: 'input' });
    // An item alone is read back from where it is stored; beside a history, the larger is reserved.
    if (known === undefined || item.contextTokens > known.contextTokens) known = item;
  }
  return known;
}

/** OpenAI's refusal of a conversation it does not know, named as given (cut to a remembered id's length). */
export function unknownConversation(id: string): GatewayError {
  return new GatewayError('invalid_request', `Conversation with id '${id.slice(0, maxRememberedIdLength)}' not found.`, { param: 'conversation' });
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
  /** The history the conversation's row holds (its entry only; conversation-owners.ts). */
  historyWritten?: number;
}

/**
 * Remembers a served Responses answer under its id — unless the request asked the upstream not to store it
 * (`store: false`: nothing can continue it) — and under its conversation's id, whose next turn reads back
 * what this one read and wrote.
 */
export function rememberAnswer(memory: ResponseMemory, ids: ContinuationIds, stored: boolean, answer: ServedAnswer): void {
  const entry: RememberedResponse = { channelId: answer.channelId, keyFingerprint: answer.keyFingerprint, userId: answer.userId, contextTokens: answer.contextTokens };
  if (stored && rememberable(answer.responseId)) memory.remember(answer.responseId, entry);
  if (ids.conversationId !== undefined) memory.remember(ids.conversationId, answer.historyWritten === undefined ? entry : { ...entry, historyWritten: answer.historyWritten });
}

/**
 * Remembers the output items a stored answer made (up to `maxRememberedItemsPerAnswer`: the meter keeps no
 * more), each with the answer's owner, channel and key; `outputTokens`: the most one item can hold.
 */
export function rememberOutputItems(memory: ResponseMemory, itemIds: readonly string[], answer: Omit<ServedAnswer, 'responseId' | 'contextTokens'>, outputTokens: number): void {
  const ids = itemIds.filter(rememberable);
  if (ids.length === 0) return;
  memory.rememberEach(ids, { channelId: answer.channelId, keyFingerprint: answer.keyFingerprint, userId: answer.userId, contextTokens: outputTokens });
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
