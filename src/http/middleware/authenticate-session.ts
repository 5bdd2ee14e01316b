import { fastifyCookie, signerFactory } from '@fastify/cookie';
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import type { AppServices } from '../app-services.js';

/** The console login cookie: `<userId>.<expiresAtSeconds>` signed with SESSION_SECRET (stateless). */
export const sessionCookieName = 'relay_session';
export const sessionLifetimeSeconds = 7 * 24 * 60 * 60;

export function sessionCookieValue(userId: number, expiresAtSeconds: number): string {
  return `${userId}.${expiresAtSeconds}`;
}

/** The raw (still signed) session cookie, read from the header so it works wherever @fastify/cookie's hook runs or not. */
export function presentedSessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined || header === '') return undefined;
  const value = fastifyCookie.parse(header)[sessionCookieName];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * A preHandler for console routes: sets request.sessionUser from a valid, unexpired session of an enabled
 * user. The user is read from the in-memory catalog, so a disabled or deleted user loses access at once.
 */
export function authenticateSession(services: AppServices): preHandlerAsyncHookHandler {
  const signer = signerFactory(services.environment.sessionSecret);
  return async function authenticateSessionHook(request) {
    const presented = presentedSessionCookie(request);
    if (presented === undefined) throw new GatewayError('missing_api_key', 'Not logged in: log in with POST /api/user/login first.');
    const unsigned = signer.unsign(presented);
    const match = unsigned.valid && unsigned.value !== null ? /^(\d+)\.(\d+)$/.exec(unsigned.value) : null;
    if (match === null) throw new GatewayError('invalid_api_key', 'Invalid session: log in again.');
    const expiresAtSeconds = Number(match[2]);
    if (expiresAtSeconds <= Math.floor(services.now() / 1000)) throw new GatewayError('invalid_api_key', 'Session expired: log in again.');
    const user = services.catalog.snapshot.usersById.get(Number(match[1]));
    if (user === undefined || !user.enabled) throw new GatewayError('invalid_api_key', 'This account no longer exists or has been disabled.');
    request.sessionUser = user;
  };
}
