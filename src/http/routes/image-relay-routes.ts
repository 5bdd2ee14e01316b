import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ImageOperation } from '../../relay/images/image-request.js';
import { runImageRelay } from '../../relay/images/run-image-relay.js';
import type { AppServices } from '../app-services.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';
import { refreshCaller } from '../refresh-caller.js';

/** Spec §4.6, §4.7: image generation and editing (`/v1/edits` is the same as `/v1/images/edits`). */
export async function imageRelayRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const options = { config: { errorStyle: 'openai' as const }, onRequest: authenticateCaller(services, 'openai') };
  const route = (path: string, operation: ImageOperation) =>
    app.post(path, options, (request, reply) => {
      refreshCaller(services, request);
      return runImageRelay(services.relay, operation, request, reply);
    });

  route('/v1/images/generations', 'generation');
  route('/v1/images/edits', 'edit');
  route('/v1/edits', 'edit');
  // OpenAI's variations (dall-e-2 only) are not relayed; new-api answers 501 as well.
  // Authenticated first, as every /v1 route is: an anonymous caller learns nothing about what is served.
  app.post('/v1/images/variations', options, (request) => {
    refreshCaller(services, request);
    throw new GatewayError('not_implemented', 'Image variations are not supported by this gateway; use /v1/images/edits.');
  });
}
