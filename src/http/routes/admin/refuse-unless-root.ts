import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.js';

/**
 * Prices and group ratios decide what every call of every user costs, so only root changes them — the
 * admin key or a root console session — as in new-api, where they are root-only options (RootAuth). An
 * admin session may read them, and manages channels, ordinary users and their tokens.
 */
export function refuseUnlessRoot(request: FastifyRequest, what: string): void {
  if (request.sessionUser?.role === 'admin') {
    throw new GatewayError('forbidden', `Only root may change ${what}; use a root login or the admin key.`);
  }
}
