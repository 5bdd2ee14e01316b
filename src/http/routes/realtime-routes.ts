import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { GatewayError } from '../../errors/gateway-error.js';
import { maxRealtimeFrameBytes } from '../../relay/realtime/connect-realtime-upstream.js';
import { rejectUpgrade } from '../../relay/realtime/reject-upgrade.js';
import { handleRealtimeUpgrade, type RealtimeSessions } from '../../relay/realtime/run-realtime-session.js';
import type { AppServices } from '../app-services.js';
import { clientAddressReader } from '../client-address.js';
import { generateRequestId } from '../generate-request-id.js';

/**
 * Spec §4.5's `GET /v1/realtime` (protocols.md §9): a WebSocket upgrade on the gateway's own HTTP server
 * (src/relay/realtime/). A plain GET is told to upgrade (426); an upgrade to any other path is a 404.
 * Open sessions are closed (1001) when the gateway shuts down, so their holds are settled before it stops.
 */
export async function realtimeRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const server = new WebSocketServer({ noServer: true, maxPayload: maxRealtimeFrameBytes, perMessageDeflate: false, handleProtocols: (offered) => (offered.has('realtime') ? 'realtime' : false) });
  const sessions: RealtimeSessions = { services: services.relay, server, open: new Set(), running: new Set(), closing: false, clientAddress: clientAddressReader(services.environment.trustProxy) };

  app.server.on('upgrade', (request, socket, head) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    if (path === '/v1/realtime') {
      handleRealtimeUpgrade(sessions, request, socket, head);
      return;
    }
    rejectUpgrade(socket, new GatewayError('route_not_found', `Invalid URL (WebSocket ${path})`), generateRequestId(services.now()));
  });

  app.get('/v1/realtime', { config: { errorStyle: 'openai' } }, () => {
    throw new GatewayError('invalid_request', 'This endpoint is a WebSocket: connect with `Upgrade: websocket` (an OpenAI Realtime client).', { status: 426 });
  });

  app.addHook('preClose', async () => {
    sessions.closing = true;
    for (const client of sessions.open) client.close(1001, 'the gateway is shutting down');
    await Promise.all(sessions.running);
    server.close();
  });
}
