import type { onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { currentCaller } from '../../relay/current-caller.js';
import type { AppServices } from '../app-services.js';
import { authenticateCaller, type KeySource } from './authenticate-caller.js';

/**
 * The hooks of a route an API key calls: the key authenticated from its headers (`onRequest`, before the
 * body is read: authenticate-caller.ts), and the caller read again once the whole body has arrived
 * (`preHandler`, the first thing that runs after it), so every step of the handler — the reservation of
 * a route's searches, its channel filter, its asset pins, the envelope's price and routing — reads one
 * caller, as the catalog has it then. A key disabled, deleted, expired or regenerated, or a user disabled,
 * while a large body uploaded is refused there (401/403, in the route's envelope); a user moved to another
 * group, or a key given other model limits, is served as it is now (current-caller.ts).
 */
export function callerHooks(services: AppServices, source: KeySource): { onRequest: onRequestHookHandler; preHandler: preHandlerHookHandler } {
  return { onRequest: authenticateCaller(services, source), preHandler: refreshCaller(services) };
}

/** Synchronous (a `done` callback, no promise): it runs on every relay request, and is two comparisons while the catalog is unchanged. */
function refreshCaller(services: AppServices): preHandlerHookHandler {
  return function refreshCallerHook(request, _reply, done) {
    try {
      currentCaller(services, request, services.now());
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}
