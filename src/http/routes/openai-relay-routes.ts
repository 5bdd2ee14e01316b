import type { FastifyInstance } from 'fastify';
import { openaiEndpoints, type OpenaiEndpoint } from '../../relay/openai/openai-endpoints.js';
import { runOpenaiRelay } from '../../relay/openai/run-openai-relay.js';
import type { AppServices } from '../app-services.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';
import { refreshCaller } from '../refresh-caller.js';

/** Spec §4.1, 4.3, 4.4, 4.5: the OpenAI-style relay routes, and the web reader and search (§4.5, protocols.md §12). */
export async function openaiRelayRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const options = { config: { errorStyle: 'openai' as const }, onRequest: authenticateCaller(services, 'openai') };
  const route = (path: string, endpoint: OpenaiEndpoint) =>
    app.post(path, options, (request, reply) => {
      refreshCaller(services, request);
      return runOpenaiRelay(services.relay, endpoint, request, reply);
    });

  route('/v1/completions', openaiEndpoints.completions);
  route('/v1/embeddings', openaiEndpoints.embeddings);
  route('/v1/moderations', openaiEndpoints.moderations);
  route('/v1/rerank', openaiEndpoints.rerank);
  route('/v1/web-reader/read', openaiEndpoints['web-reader']);
  route('/v1/web-search/search', openaiEndpoints['web-search']);

  // The legacy embeddings path names the model in the URL (new-api keeps it).
  app.post<{ Params: { model: string } }>('/v1/engines/:model/embeddings', options, (request, reply) => {
    refreshCaller(services, request);
    const body = request.body;
    if (body !== null && typeof body === 'object' && !Array.isArray(body) && (body as Record<string, unknown>).model === undefined) {
      (body as Record<string, unknown>).model = request.params.model;
      request.rawBody = undefined;
    }
    return runOpenaiRelay(services.relay, openaiEndpoints.embeddings, request, reply);
  });
}
