import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../../storage/database-schema.js';
import type { AppServices } from '../app-services.js';

export interface HealthRouteOptions {
  /** A database that does not answer within this time is not ready (the pg pool would otherwise wait forever). */
  readinessTimeoutMs?: number;
}

/** Liveness answers while the process runs; readiness only while the database answers. */
export async function healthRoutes(app: FastifyInstance, services: AppServices, options: HealthRouteOptions = {}): Promise<void> {
  const readinessTimeoutMs = options.readinessTimeoutMs ?? 2_000;
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    try {
      await pingDatabase(services.database.db, readinessTimeoutMs);
      return { status: 'ready', database: services.database.dialect };
    } catch (error) {
      return reply.code(503).send({ status: 'unavailable', database: services.database.dialect, error: (error as Error).message });
    }
  });
}

async function pingDatabase(db: Database, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([sql`select 1`.execute(db), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
