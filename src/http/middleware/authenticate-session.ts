import { fastifyCookie, signerFactory } from '@fastify/cookie';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { CatalogSnapshot } from '../../catalog/catalog.js';
import type { UserRecord } from '../../catalog/catalog-records.js';
import { GatewayError, type GatewayErrorCode } from '../../errors/gateway-error.js';
import type { AppServices } from '../app-services.js';

/**
 * The console login cookie: `<userId>.<expiresAtSeconds>.<sessionVersion>` signed with SESSION_SECRET. No
 * session table: the user's session version, held in the in-memory catalog, is the revocation list — a
 * logout, password change, role change or disable bumps it and every older cookie is refused.
 */
export const sessionCookieName = 'relay_session';
export const sessionLifetimeSeconds = 7 * 24 * 60 * 60;

export function sessionCookieValue(userId: number, expiresAtSeconds: number, sessionVersion: number): string {
  return `${userId}.${expiresAtSeconds}.${sessionVersion}`;
}

/** The raw (still signed) session cookie, read from the header so it works wherever @fastify/cookie's hook runs or not. */
export function presentedSessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined || header === '') return undefined;
  const value = fastifyCookie.parse(header)[sessionCookieName];
  return value === undefined || value === '' ? undefined : value;
}

export type SessionReading = { ok: true; user: UserRecord } | { ok: false; code: GatewayErrorCode; message: string };

/**
 * Pure: the user of a session cookie whose signature was already checked (`unsigned` is its payload, or
 * null when the signature is wrong). A cookie of the format before session versions (`<id>.<expiry>`)
 * counts as version 0, so it lasts until the user's first logout or password change.
 */
export function readSession(snapshot: CatalogSnapshot, unsigned: string | null, nowSeconds: number): SessionReading {
  const match = unsigned === null ? null : /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(unsigned);
  if (match === null) return { ok: false, code: 'invalid_api_key', message: 'Invalid session: log in again.' };
  if (Number(match[2]) <= nowSeconds) return { ok: false, code: 'invalid_api_key', message: 'Session expired: log in again.' };
  const user = snapshot.usersById.get(Number(match[1]));
  if (user === undefined || !user.enabled) return { ok: false, code: 'invalid_api_key', message: 'This account no longer exists or has been disabled.' };
  if (Number(match[3] ?? 0) !== user.sessionVersion) return { ok: false, code: 'invalid_api_key', message: 'This session has ended (logout or password change): log in again.' };
  return { ok: true, user };
}

/** Checks the signature and reads the session of a request; undefined when it presents no session cookie. */
export function sessionReader(services: AppServices): (request: FastifyRequest) => SessionReading | undefined {
  const signer = signerFactory(services.sessionSecret);
  return (request) => {
    const presented = presentedSessionCookie(request);
    if (presented === undefined) return undefined;
    const unsigned = signer.unsign(presented);
    return readSession(services.catalog.snapshot, unsigned.valid ? unsigned.value : null, Math.floor(services.now() / 1000));
  };
}

/**
 * An `onRequest` hook for console routes (it runs before the body is read): sets request.sessionUser from a
 * valid, unexpired, current session of an enabled user. The user is read from the in-memory catalog (no
 * database read), so a disabled or deleted user, or an ended session, loses access at once.
 */
export function authenticateSession(services: AppServices): onRequestAsyncHookHandler {
  const read = sessionReader(services);
  return async function authenticateSessionHook(request) {
    const session = read(request);
    if (session === undefined) throw new GatewayError('missing_api_key', 'Not logged in: log in with POST /api/user/login first.');
    if (!session.ok) throw new GatewayError(session.code, session.message);
    request.sessionUser = session.user;
  };
}
