import type { FastifyInstance } from 'fastify';
import type { AppServices } from './app-services.js';
import { accountRoutes } from './routes/account-routes.js';
import { adminRoutes } from './routes/admin/admin-routes.js';
import { conversationRoutes } from './routes/conversation-routes.js';
import { healthRoutes } from './routes/health-routes.js';
import { imageRelayRoutes } from './routes/image-relay-routes.js';
import { midjourneyRoutes } from './routes/midjourney-routes.js';
import { modelRoutes } from './routes/model-routes.js';
import { openaiRelayRoutes } from './routes/openai-relay-routes.js';
import { playgroundRoutes } from './routes/playground-routes.js';
import { realtimeRoutes } from './routes/realtime-routes.js';
import { selfRoutes } from './routes/self-routes.js';
import { sessionRoutes } from './routes/session-routes.js';
import { storedResponseRoutes } from './routes/stored-response-routes.js';
import { sunoRoutes } from './routes/suno-routes.js';
import { textRelayRoutes } from './routes/text-relay-routes.js';
import { uploadRoutes } from './routes/upload-routes.js';
import { videoRoutes } from './routes/video-routes.js';

/** Every route of the gateway, in one visible list. */
export async function registerRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  await healthRoutes(app, services);
  await modelRoutes(app, services);
  await textRelayRoutes(app, services);
  await openaiRelayRoutes(app, services);
  await conversationRoutes(app, services);
  await storedResponseRoutes(app, services);
  await imageRelayRoutes(app, services);
  await videoRoutes(app, services);
  await sunoRoutes(app, services);
  await midjourneyRoutes(app, services);
  await realtimeRoutes(app, services);
  await accountRoutes(app, services);
  await uploadRoutes(app, services);
  await sessionRoutes(app, services);
  await selfRoutes(app, services);
  await playgroundRoutes(app, services);
  await adminRoutes(app, services);
}
