import type { FastifyRequest } from 'fastify';
import { reauthenticateCaller, type AuthenticatedCaller } from '../auth/authenticate-token.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { RelayServices } from './relay-services.js';

/**
 * The request's caller as the catalog has it now, once its body has arrived. The key is checked in
 * `onRequest`, before the body (authenticate-caller.ts); a token or user disabled, deleted, expired or moved
 * to another group while a large body was still uploading must not be admitted as it was. Refused with the
 * status authentication gives (401 key unknown, disabled or expired, 403 user disabled or group not
 * allowed); a caller that changed replaces `request.caller`, so the new group and model limits apply.
 * Called first by the route's handler (http/refresh-caller.ts), the moment the body is complete, so every
 * step before the envelope (a search reservation, a channel filter, an asset pin) reads the caller it will
 * be admitted as; then at admission, where it sees only a change made during those steps.
 * Hot path: while the catalog is the snapshot the caller was read from and its key has not expired, it is
 * the caller itself — two comparisons, nothing allocated.
 */
export function currentCaller(services: Pick<RelayServices, 'catalog'>, request: FastifyRequest, nowMs: number): AuthenticatedCaller {
  const caller = request.caller;
  if (caller === undefined) throw new Error('relay routes run after authentication');
  const snapshot = services.catalog.snapshot;
  const expiresAt = caller.token.expiresAt;
  // expiresAt is whole seconds: `expiresAt * 1000 > nowMs` is authentication's `expiresAt > floor(nowMs / 1000)`.
  if (caller.snapshot === snapshot && (expiresAt === 0 || expiresAt * 1000 > nowMs)) return caller;
  const again = reauthenticateCaller(snapshot, caller, Math.floor(nowMs / 1000));
  if (!again.ok) throw new GatewayError(again.code, again.message);
  request.caller = again.caller;
  return again.caller;
}
