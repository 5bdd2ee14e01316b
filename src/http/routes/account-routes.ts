import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.js';

/** Spec §4.11: token usage and the OpenAI-compatible billing routes. */
export async function accountRoutes(_app: FastifyInstance, _services: AppServices): Promise<void> {}
