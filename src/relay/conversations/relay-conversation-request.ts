import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokenAllowsModel } from '../../auth/authorize-model.js';
import type { AuthenticatedCaller } from '../../auth/authenticate-token.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { keyByFingerprint, keyFingerprint } from '../../tasks/key-fingerprint.js';
import { estimateTextTokens } from '../estimate-text-tokens.js';
import type { RelayServices } from '../relay-services.js';
import { maxRememberedIdLength } from '../responses/continued-response.js';
import { askAssetChannels, type AskedService } from '../video/ask-asset-channels.js';
import { runAssetRequest } from '../video/run-asset-request.js';
import { conversationChannels } from './conversation-channels.js';

/** A page of items is at most 100 of them: generous, but a bound (the answer is held to be relayed whole). */
const conversationsService: AskedService = { name: 'Conversations API', noChannel: 'No Responses channel of your group can hold conversations.', maxAnswerBytes: 32 * 1024 * 1024 };
const logStyle = 'openai-conversations';
const conversationsRoot = '/v1/conversations';

/** One Conversations API call: its method, and its path below `/v1/conversations` (with the query, as the client sent it). */
export interface ConversationCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** `''` for create; `/{id}`, `/{id}/items`, `/{id}/items/{item_id}` (each segment URI-encoded), then `?query` if any. */
  subpath: string;
  /** The client's bytes (POST), sent as they came. */
  body: Buffer | string | undefined;
  /** `DELETE /v1/conversations/{id}`: once the upstream has deleted it, the gateway forgets it. */
  deletesConversation: boolean;
}

/** The caller's channels that hold conversations and stored responses (conversation-channels.ts), best first. */
export const statefulChannelsOf = (services: RelayServices, caller: AuthenticatedCaller) =>
  conversationChannels(services.catalog.snapshot.channels, { group: caller.group, pinnedChannelId: caller.pinnedChannelId, allowsModel: (model) => tokenAllowsModel(caller, model) });

/** A call below `root` (`/v1/conversations`, `/v1/responses`) on a channel, with its key, the client's bytes as sent. */
export const statefulUpstreamRequest = (root: string, call: Pick<ConversationCall, 'method' | 'subpath' | 'body'>) => (channel: { baseUrl: string }, key: string, signal: AbortSignal) => ({
  url: `${channel.baseUrl}${root}${call.subpath}`,
  method: call.method,
  headers: { authorization: `Bearer ${key}`, accept: 'application/json', ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
  body: call.body,
  signal,
});

/**
 * `POST /v1/conversations`: made on the first of the caller's conversation channels that answers
 * (conversation-channels.ts), with that channel's next key in turn; the conversation id it answers is
 * remembered as a stored response is (same memory), with its maker, channel and key, and recorded in the
 * database before the id is answered (conversation-owners.ts: a restart, or the memory's lapse, must not
 * make it unknown to its maker), so that its later requests go there and no other user reaches it. Its
 * initial items are counted as the history a first turn reads back. Free (run-asset-request.ts: rate
 * limits, a log row of quota 0).
 */
export function createConversation(services: RelayServices, request: FastifyRequest, reply: FastifyReply, body: Buffer | string): Promise<void> {
  return runAssetRequest(
    services,
    request,
    reply,
    async (caller) => {
      const answer = await askAssetChannels(services, statefulChannelsOf(services, caller), (channel) => services.health.pickKey(channel), statefulUpstreamRequest(conversationsRoot, { method: 'POST', subpath: '', body }), conversationsService);
      const id = answer.status < 300 ? conversationIdOf(answer.text) : undefined;
      if (id !== undefined) {
        await services.conversations.recordMade(id, { channelId: answer.channel.id, keyFingerprint: keyFingerprint(answer.key), userId: caller.user.id }, estimateTextTokens(body.toString()));
      }
      return answer;
    },
    logStyle,
  );
}

/**
 * Every other Conversations route: only the user who made the conversation (through the gateway, or by the
 * first turn that named it when unknown conversations may be claimed) may reach it, on its channel with its
 * key; any other id — another user's, one the gateway does not know or no longer remembers — is OpenAI's
 * 404 for an unknown conversation, with no upstream call (every user shares the channel's account, which
 * would answer for any id). Each request it answers keeps the memory's entry alive another lifetime (the
 * memory forgets what is not written for 72 hours; the table then answers, with twice the history it
 * holds), and items added count into the history its next turn reserves (the row's once it has doubled). A conversation the upstream deleted here is
 * forgotten (table, memory, Redis): its maker's next request is the same 404, with no upstream call.
 */
export function relayOwnedConversation(services: RelayServices, request: FastifyRequest, reply: FastifyReply, conversationId: string, call: ConversationCall): Promise<void> {
  return runAssetRequest(
    services,
    request,
    reply,
    async (caller) => {
      const owner = conversationId.length <= maxRememberedIdLength ? await services.conversations.recall(conversationId) : undefined;
      if (owner === undefined || owner.userId !== caller.user.id) {
        throw new GatewayError('not_found', `Conversation with id '${conversationId.slice(0, maxRememberedIdLength)}' not found.`);
      }
      const holder = statefulChannelsOf(services, caller).filter((channel) => channel.id === owner.channelId);
      const answer = await askAssetChannels(services, holder, (channel) => keyByFingerprint(channel.keys, owner.keyFingerprint ?? null), statefulUpstreamRequest(conversationsRoot, call), conversationsService);
      if (answer.status < 300 && call.deletesConversation) {
        await services.conversations.forget(conversationId);
      } else if (answer.status < 300) {
        const added = call.method === 'POST' && call.subpath.includes('/items') && call.body !== undefined ? estimateTextTokens(call.body.toString()) : 0;
        const contextTokens = owner.contextTokens + added;
        const historyWritten = added === 0 ? owner.historyWritten : services.conversations.noteHistory(conversationId, contextTokens, owner.historyWritten ?? 0);
        services.responses.remember(conversationId, { ...owner, contextTokens, ...(historyWritten === undefined ? {} : { historyWritten }) });
      }
      return answer;
    },
    logStyle,
  );
}

/** The conversation's id in a create's answer (`{ id: "conv_…", object: "conversation", … }`), when it can be remembered. */
function conversationIdOf(text: string): string | undefined {
  try {
    const id = (JSON.parse(text) as { id?: unknown } | null)?.id;
    return typeof id === 'string' && id !== '' && id.length <= maxRememberedIdLength ? id : undefined;
  } catch {
    return undefined;
  }
}
