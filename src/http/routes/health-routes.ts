import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppServices } from '../app-services.js';

/** Liveness answers while the process runs; readiness only while the database answers. */
export async function healthRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(services.database.db);
      return { status: 'ready', database: services.database.dialect };
    } catch (error) {
      return reply.code(503).send({ status: 'unavailable', database: services.database.dialect, error: (error as Error).message });
    }
  });
}
