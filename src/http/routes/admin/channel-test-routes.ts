import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.js';
import { testChannel } from '../../../relay/test-channel.js';
import type { AppServices } from '../../app-services.js';

/**
 * `POST /api/admin/channels/{id}/test` (registered inside the authenticated admin plugin): a tiny request
 * to the channel; success forgets its failures and re-enables it when it was disabled automatically.
 */
export async function channelTestRoutes(admin: FastifyInstance, services: AppServices): Promise<void> {
  admin.post<{ Params: { id: string }; Querystring: { model?: string } }>(
    '/channels/:id/test',
    { schema: { tags: ['channels'], summary: 'Send a tiny request to a channel; re-enable it on success', params: { type: 'object', properties: { id: { type: 'integer' } } } } },
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
      return { success: result.ok, message: result.ok ? '' : result.message, data: { status: result.status, latency_ms: result.latencyMs, model: result.model, reenabled } };
    },
  );
}
