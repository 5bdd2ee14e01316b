import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { testChannel } from '../../relay/test-channel.js';
import type { AppServices } from '../app-services.js';
import { authenticateAdmin } from '../middleware/authenticate-admin.js';

/** `POST /api/admin/channels/{id}/test`: a tiny request; success re-enables an automatically disabled channel. */
export async function channelTestRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  app.post<{ Params: { id: string }; Querystring: { model?: string } }>(
    '/api/admin/channels/:id/test',
    { config: { errorStyle: 'api' }, preHandler: authenticateAdmin(services) },
    async (request) => {
      const id = Number(request.params.id);
      const channel = Number.isInteger(id) ? services.catalog.snapshot.channelsById.get(id) : undefined;
      if (channel === undefined) throw new GatewayError('not_found', `Channel ${request.params.id} does not exist.`);
      const result = await testChannel(services.relay, channel, request.query.model);
      let reenabled = false;
      if (result.ok) {
        services.relay.health.reset(channel.id);
        if (channel.status === 'auto_disabled') {
          await services.repositories.channels.update(channel.id, { status: 'enabled', statusReason: null }, services.now());
          await services.catalog.changed();
          reenabled = true;
        }
      }
      return {
        success: result.ok,
        message: result.ok ? '' : result.message,
        data: { status: result.status, latency_ms: result.latencyMs, model: result.model, reenabled },
      };
    },
  );
}
