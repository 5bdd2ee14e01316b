import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.js';

export async function adminRoutes(_app: FastifyInstance, _services: AppServices): Promise<void> {}
