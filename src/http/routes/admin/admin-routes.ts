import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.js';
import { sessionCookieName } from '../../middleware/authenticate-session.js';
import { authenticateAdminOrSession } from './authenticate-admin-or-session.js';
import { channelRoutes } from './channel-routes.js';
import { channelTestRoutes } from './channel-test-routes.js';
import { groupRoutes } from './group-routes.js';
import { logRoutes } from './log-routes.js';
import { priceRoutes } from './price-routes.js';
import { tokenRoutes } from './token-routes.js';
import { userRoutes } from './user-routes.js';

/**
 * /api/admin/*: the management API (issue #2), with its OpenAPI document at /api/admin/openapi.json and a
 * browsable page at /api/admin/docs. Everything lives in one encapsulated plugin so its settings stay here.
 */
export async function adminRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  await app.register(
    async (admin) => {
      // Route schemas are documentation only: zod validates inside the handlers (strict, naming the field,
      // in our envelope), and answers are serialized as they are, never filtered through a response schema.
      admin.setValidatorCompiler(() => () => true);
      admin.setSerializerCompiler(() => (data) => JSON.stringify(data));

      // Registered before the routes: @fastify/swagger collects them with an onRoute hook.
      await admin.register(swagger, {
        openapi: {
          openapi: '3.0.3',
          info: {
            title: 'Unified Relay admin API',
            version: '1',
            description: 'Answers are `{ success, message, data }`; errors `{ success: false, message }` with their HTTP status.',
          },
          components: {
            securitySchemes: {
              adminKey: { type: 'http', scheme: 'bearer', description: 'The root admin key.' },
              consoleSession: { type: 'apiKey', in: 'cookie', name: sessionCookieName, description: 'A console login of a root or admin user (POST /api/user/login).' },
            },
          },
        },
      });
      // indexPrefix: the page links its scripts by absolute path, which must include this plugin's prefix.
      await admin.register(swaggerUi, { routePrefix: '/docs', indexPrefix: '/api/admin' });
      admin.get('/openapi.json', { schema: { hide: true }, config: { errorStyle: 'api' } }, async () => admin.swagger());

      await admin.register(async (authenticated) => {
        authenticated.addHook('onRoute', (route) => {
          route.config = { ...route.config, errorStyle: 'api' };
        });
        authenticated.addHook('onRequest', authenticateAdminOrSession(services));
        await channelRoutes(authenticated, services);
        await channelTestRoutes(authenticated, services);
        await tokenRoutes(authenticated, services);
        await userRoutes(authenticated, services);
        await priceRoutes(authenticated, services);
        await groupRoutes(authenticated, services);
        await logRoutes(authenticated, services);
      });
    },
    { prefix: '/api/admin' },
  );
}
