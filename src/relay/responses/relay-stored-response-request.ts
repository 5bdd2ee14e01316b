import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { keyByFingerprint } from '../../tasks/key-fingerprint.js';
import { statefulChannelsOf, statefulUpstreamRequest } from '../conversations/relay-conversation-request.js';
import type { RelayServices } from '../relay-services.js';
import { askAssetChannels, type AskedService } from '../video/ask-asset-channels.js';
import { runAssetRequest } from '../video/run-asset-request.js';
import { maxRememberedIdLength } from './continued-response.js';

/** A stored response repeats its request and output; a page of input items is at most 100 of them. */
const storedResponses: AskedService = { name: 'Responses API', noChannel: 'No Responses channel of your group holds stored responses.', maxAnswerBytes: 32 * 1024 * 1024 };
const logStyle = 'openai-stored-responses';

/** One call on a stored response: retrieve, delete, cancel, or list its input items. */
export interface StoredResponseCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** `/{id}`, `/{id}/cancel`, `/{id}/input_items` (the id URI-encoded), then `?query` as the client sent it. */
  subpath: string;
  /** `DELETE /v1/responses/{id}`: once the upstream has deleted it, the gateway forgets it. */
  deletesResponse: boolean;
}

/** OpenAI's answer for a response id its account does not hold. */
export function unknownStoredResponse(id: string): GatewayError {
  return new GatewayError('not_found', `Response with id '${id.slice(0, maxRememberedIdLength)}' not found.`);
}

/**
 * `GET`/`DELETE /v1/responses/{id}`, `POST …/{id}/cancel`, `GET …/{id}/input_items`: a stored response is
 * on the account of the channel key that made it (the response memory knows which, and whose request it
 * was: response-memory.ts), so the call goes there with that key — while that channel is still one of the
 * caller's Responses channels — and only for the user whose request made it. Any other id (another user's,
 * one made on a converted channel, which stores nothing, with `store: false`, or one the memory no longer
 * holds) is OpenAI's 404 with no upstream call: every user shares the channel's account, which would
 * answer for any id. A response the upstream deleted here is forgotten. Free (run-asset-request.ts).
 */
export function relayStoredResponse(services: RelayServices, request: FastifyRequest, reply: FastifyReply, responseId: string, call: StoredResponseCall): Promise<void> {
  return runAssetRequest(
    services,
    request,
    reply,
    async (caller) => {
      const owner = responseId.length <= maxRememberedIdLength ? await services.responses.recall(responseId) : undefined;
      if (owner === undefined || owner.userId !== caller.user.id) throw unknownStoredResponse(responseId);
      const holder = statefulChannelsOf(services, caller).filter((channel) => channel.id === owner.channelId);
      const answer = await askAssetChannels(services, holder, (channel) => keyByFingerprint(channel.keys, owner.keyFingerprint ?? null), statefulUpstreamRequest('/v1/responses', { ...call, body: undefined }), storedResponses);
      if (answer.status < 300 && call.deletesResponse) await services.responses.forget(responseId);
      return answer;
    },
    logStyle,
  );
}
