import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.js';
import { testChannel } from '../../../relay/test-channel.js';
import type { AppServices } from '../../app-services.js';
import { parseIdParameter } from './parse-id-parameter.js';
import { parseTextQuery } from './parse-text-query.js';

/**
 * `POST /api/admin/channels/{id}/test` (registered inside the authenticated admin plugin): a tiny request
 * to the channel; success forgets its failures and re-enables it when it was disabled automatically.
 */
export async function channelTestRoutes(admin: FastifyInstance, services: AppServices): Promise<void> {
  admin.post<{ Params: { id: string }; Querystring: { model?: unknown } }>(
    '/channels/:id/test',
    { schema: { tags: ['channels'], summary: 'Send a tiny request to a channel; re-enable it on success', params: { type: 'object', properties: { id: { type: 'integer' } } } } },
    async (request) => {
      // A path id that is not an id is a malformed request (400), as on every other `:id` route, not a missing channel.
      const id = parseIdParameter(request.params);
      const model = parseTextQuery(request.query, 'model');
      const channel = services.catalog.snapshot.channelsById.get(id);
      if (channel === undefined) throw new GatewayError('not_found', `Channel ${id} does not exist.`);
      const result = await testChannel(services.relay, channel, model);
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
