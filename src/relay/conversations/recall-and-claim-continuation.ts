import { recallContinuation, unknownConversation, type ContinuationIds } from '../responses/continued-response.js';
import type { RememberedResponse } from '../responses/response-memory.js';
import type { RelayServices } from '../relay-services.js';
import type { ConversationOwner } from './conversation-owners.js';

/** A turn's hold on a conversation it claimed (none claimed: both do nothing). */
export interface ConversationClaim {
  /** The claim's first answer: the channel and key that hold the conversation are written into its row (once). */
  answered(owner: ConversationOwner): void;
  /** The request got no answer (refused at admission, no channel, the upstream's error): the id is left to the next request that is answered. */
  releaseIfUnanswered(): Promise<void>;
}

export interface ClaimedContinuation {
  /** What the request continues (recallContinuation), undefined when the gateway knows none of it. */
  known: RememberedResponse | undefined;
  /** The conversation's own entry, when it names one the gateway knows. */
  conversation: RememberedResponse | undefined;
  claim: ConversationClaim;
}

const noClaim: ConversationClaim = { answered: () => undefined, releaseIfUnanswered: async () => undefined };

/**
 * The stored state a `/v1/responses` or `/v1/responses/compact` request continues, as recallContinuation
 * reads it (the conversation from the memory, then the `conversation_owners` table) — and, for a
 * conversation neither knows that `allow_unknown_conversations` lets through, this request's claim of it,
 * made in the table before any upstream call: a request whose claim finds another user's row is refused as
 * any other user's. Both routes reach the conversation upstream, so both claim: a conversation first named
 * on one must not be left to whoever names it next on the other. A turn naming its user's claim that awaits
 * its first answer (the table's row at channel 0) holds that claim too: another turn's release then leaves
 * the row to this one's answer, and a row whose answer could not be written gets the channel of the next.
 */
export async function recallAndClaimContinuation(services: RelayServices, ids: ContinuationIds, userId: number): Promise<ClaimedContinuation> {
  let conversation: RememberedResponse | undefined;
  let unknown = false;
  const recallConversation = async (id: string) => {
    conversation = await services.conversations.recall(id);
    unknown = conversation === undefined;
    return conversation;
  };
  const known = await recallContinuation(services.responses, ids, userId, services.catalog.snapshot.settings.allowUnknownConversations, recallConversation);
  const conversationId = ids.conversationId;
  // This user's claim whose first answer is not written yet (another turn's in flight, or its write failed
  // for good): this turn holds it too, and its answer names the channel if none has.
  const claimed = conversation?.channelId === 0;
  if (!(unknown || claimed) || conversationId === undefined) return { known, conversation, claim: noClaim };
  if (!(await services.conversations.claim(conversationId, userId))) throw unknownConversation(conversationId);
  let open = true;
  return {
    known,
    conversation,
    claim: {
      answered: (owner) => {
        if (!open) return;
        open = false;
        services.conversations.answerClaim(conversationId, owner);
      },
      releaseIfUnanswered: async () => {
        if (!open) return;
        open = false;
        await services.conversations.releaseClaim(conversationId, userId);
      },
    },
  };
}
