import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createConversation, relayOwnedConversation, type ConversationCall } from '../../relay/conversations/relay-conversation-request.js';
import { requireObjectBody } from '../../relay/validate-body.js';
import type { AppServices } from '../app-services.js';
import { readClientQuery } from '../read-client-query.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';
import { refreshCaller } from '../refresh-caller.js';

type Params = { id: string; item?: string };

/**
 * OpenAI's Conversations API (relay-conversation-request.ts): create on one of the caller's Responses
 * channels, everything else on the conversation's own channel, for its maker alone. Free.
 */
export async function conversationRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const options = { config: { errorStyle: 'openai' as const }, onRequest: authenticateCaller(services, 'openai') };
  const relay = services.relay;

  app.post('/v1/conversations', options, (request, reply) => {
    refreshCaller(services, request);
    // Every field is optional: no body at all asks for an empty conversation.
    return createConversation(relay, request, reply, request.body === undefined ? '{}' : bytesOf(request));
  });

  const owned = (method: ConversationCall['method'], suffix: (params: Params) => string, withBody: boolean) => (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    // A request with a body: the caller as it is once the body has arrived (refresh-caller.ts).
    if (withBody) refreshCaller(services, request);
    const body = withBody ? bytesOf(request) : undefined;
    const subpath = `/${encodeURIComponent(request.params.id)}${suffix(request.params)}${readClientQuery(request.url)}`;
    const deletesConversation = method === 'DELETE' && suffix === none;
    return relayOwnedConversation(relay, request, reply, request.params.id, { method, subpath, body, deletesConversation });
  };
  const none = () => '';
  const items = () => '/items';
  const item = (params: Params) => `/items/${encodeURIComponent(params.item ?? '')}`;

  app.get<{ Params: Params }>('/v1/conversations/:id', options, owned('GET', none, false));
  app.post<{ Params: Params }>('/v1/conversations/:id', options, owned('POST', none, true));
  app.delete<{ Params: Params }>('/v1/conversations/:id', options, owned('DELETE', none, false));
  app.get<{ Params: Params }>('/v1/conversations/:id/items', options, owned('GET', items, false));
  app.post<{ Params: Params }>('/v1/conversations/:id/items', options, owned('POST', items, true));
  app.get<{ Params: Params }>('/v1/conversations/:id/items/:item', options, owned('GET', item, false));
  app.delete<{ Params: Params }>('/v1/conversations/:id/items/:item', options, owned('DELETE', item, false));
}

/** The client's bytes, sent as they came, once the body is known to be a JSON object (else 400). */
function bytesOf(request: FastifyRequest): Buffer | string {
  const body = requireObjectBody(request.body);
  return request.rawBody ?? JSON.stringify(body);
}
