import type { FastifyRequest } from 'fastify';
import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import { currentCaller } from '../relay/current-caller.js';
import type { AppServices } from './app-services.js';

/**
 * The caller read again the moment the body has arrived: the first statement of every handler of a route an
 * API key calls with a body (the key itself is checked from the headers in `onRequest`, before the body:
 * authenticate-caller.ts). Every later step — a route's search reservation, its channel filter, its asset
 * pins, the envelope's price and routing — then reads one caller, as the catalog has it now; a key disabled,
 * deleted, expired or regenerated, or a user disabled, while a large body uploaded is refused here (401/403,
 * thrown into the route's envelope) before the body is looked at (current-caller.ts).
 * A call, not a `preHandler` hook: on the hot path a hook costs Fastify's hook runner and its closures per
 * request; this is two comparisons while the catalog is unchanged.
 */
export function refreshCaller(services: Pick<AppServices, 'catalog' | 'now'>, request: FastifyRequest): AuthenticatedCaller {
  return currentCaller(services, request, services.now());
}
