import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { relayStoredResponse, type StoredResponseCall } from '../../relay/responses/relay-stored-response-request.js';
import type { AppServices } from '../app-services.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';
import { readClientQuery } from '../read-client-query.js';

type Params = { id: string };

/**
 * A stored response's own routes (relay-stored-response-request.ts): retrieve, delete, cancel and its
 * input items, on the channel and key that stored it, for the user whose request made it. Free.
 */
export async function storedResponseRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const options = { config: { errorStyle: 'openai' as const }, onRequest: authenticateCaller(services, 'openai') };

  const stored = (method: StoredResponseCall['method'], suffix: string) => (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    if (method === 'GET' && suffix === '' && isTrue((request.query as Record<string, unknown>).stream)) {
      // OpenAI streams only a background response again; the gateway makes none (a `background: true` is
      // answered in the foreground), so a stored response is whole by the time it can be read back.
      throw new GatewayError('invalid_request', 'Streaming a stored response back is not supported: the gateway makes no background responses. Retrieve it without `stream`.', { param: 'stream' });
    }
    const subpath = `/${encodeURIComponent(request.params.id)}${suffix}${readClientQuery(request.url)}`;
    return relayStoredResponse(services.relay, request, reply, request.params.id, { method, subpath, deletesResponse: method === 'DELETE' });
  };

  app.get<{ Params: Params }>('/v1/responses/:id', options, stored('GET', ''));
  app.delete<{ Params: Params }>('/v1/responses/:id', options, stored('DELETE', ''));
  app.post<{ Params: Params }>('/v1/responses/:id/cancel', options, stored('POST', '/cancel'));
  app.get<{ Params: Params }>('/v1/responses/:id/input_items', options, stored('GET', '/input_items'));
}

const isTrue = (value: unknown) => value === 'true' || value === true || (Array.isArray(value) && value.includes('true'));
