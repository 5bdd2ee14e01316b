import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { callerOpenaiChannels, type ChannelCaller } from '../../routing/caller-openai-channels.js';

/** Who asks: the caller's group, its key's pinned channel, and the models its key may use. */
export type ConversationCaller = ChannelCaller;

/**
 * Pure: the channels that may hold a caller's conversations, best first — the channels that serve its
 * Responses models statefully: enabled `openai` channels set to the Responses API (`settings.api:
 * responses`; a Chat channel's account has no Conversations API the gateway can count on), of its group (or
 * its key's pinned channel), listing a model its key may use (a key limited to embeddings reaches none);
 * the highest priority first, then the heaviest weight, then the oldest. A conversation has no model, so
 * `POST /v1/conversations` is made on the first of these that answers, and a conversation's later requests
 * must still find its channel among them.
 */
export function conversationChannels(channels: readonly ChannelRecord[], caller: ConversationCaller): ChannelRecord[] {
  return callerOpenaiChannels(channels, caller, (channel) => channel.settings.api === 'responses');
}
