import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { UserRecord } from '../../catalog/catalog-records.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { hashPassword, verifyPassword } from '../../security/passwords.js';
import type { AppServices } from '../app-services.js';
import { LoginThrottle } from '../../limits/login-throttle.js';
import { authenticateSession, sessionCookieName, sessionCookieValue, sessionLifetimeSeconds, sessionReader } from '../middleware/authenticate-session.js';
import { parseRequestBody } from './admin/parse-request-body.js';
import { successEnvelope } from './admin/success-envelope.js';

const loginBodySchema = z.object({
  username: z.string().min(1).max(64),
  password: z.string().min(1).max(1024),
});

const invalidCredentials = 'Invalid username or password';

function sessionUserView(user: UserRecord) {
  return { id: user.id, username: user.username, role: user.role, group: user.group };
}

/**
 * Console login (spec §7.1, classic cookie mode): a signed, HttpOnly, SameSite=Strict cookie carrying the
 * user id, expiry and the user's session version. No session table: every replica checks the version
 * against its in-memory catalog, and logout bumps it (ending every session of the user).
 */
export async function sessionRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  // On the root instance: the admin and playground routes read sessionUser too.
  if (!app.hasRequestDecorator('sessionUser')) app.decorateRequest('sessionUser', undefined);
  // @fastify/cookie in this scope alone, with no parsing hook: only login and logout set cookies, and the
  // session check parses the Cookie header itself. Registered on the root, its hooks ran on every request
  // (a parse and a Map on each, an onSend step on each answer), relay calls included.
  await app.register(async (scope) => {
    await scope.register(cookie, { secret: services.sessionSecret, hook: false });

    // An unknown username still costs one scrypt, so response time does not reveal which usernames exist.
    let timingDecoy: Promise<string> | undefined;
    const config = { errorStyle: 'api' as const };
    const loginThrottle = new LoginThrottle();
    const readSession = sessionReader(services);

    scope.post('/api/user/login', { config }, async (request, reply) => {
      const body = parseRequestBody(loginBodySchema, request.body);
      const throttleKey = `${request.ip}\n${body.username}`;
      const admission = await loginThrottle.admit(throttleKey, services.now());
      if (!admission.allowed) {
        throw new GatewayError('rate_limited', `Too many failed logins: try again in ${admission.retryAfterSeconds} s.`, {
          headers: { 'retry-after': String(admission.retryAfterSeconds) },
        });
      }
      // The attempt was counted as a failure when admitted: only a success gives it back.
      const refuse = (): never => {
        throw new GatewayError('invalid_api_key', invalidCredentials);
      };
      const stored = await services.repositories.users.passwordHashOf(body.username);
      if (stored === undefined || stored.passwordHash === null) {
        // No such user, or one without a password (root before one is set): never a match, but just as slow.
        timingDecoy ??= hashPassword(randomBytes(32).toString('hex'));
        await verifyPassword(body.password, await timingDecoy);
        return refuse();
      }
      if (!(await verifyPassword(body.password, stored.passwordHash))) return refuse();
      await loginThrottle.succeeded(throttleKey, services.now());
      const user = await services.repositories.users.get(stored.id);
      if (user === undefined) throw new GatewayError('invalid_api_key', invalidCredentials);
      if (!user.enabled) throw new GatewayError('user_disabled', 'This account has been disabled.');
      const expiresAtSeconds = Math.floor(services.now() / 1000) + sessionLifetimeSeconds;
      void reply.setCookie(sessionCookieName, sessionCookieValue(user.id, expiresAtSeconds, user.sessionVersion), {
        signed: true,
        httpOnly: true,
        sameSite: 'strict',
        // Secure whenever the request came over HTTPS (directly or through a proxy), so plain-HTTP local use still works.
        secure: 'auto',
        path: '/',
        maxAge: sessionLifetimeSeconds,
      });
      return successEnvelope(sessionUserView(user));
    });

    // Any content type: a forged logout could only end sessions. The user's every session ends (the version
    // is per user), on every replica once its catalog reloads.
    scope.post('/api/user/logout', { config }, async (request, reply) => {
      const session = readSession(request);
      if (session?.ok === true) {
        await services.repositories.users.endSessions(session.user.id, services.now());
        await services.catalog.changed();
      }
      void reply.clearCookie(sessionCookieName, { path: '/', httpOnly: true, sameSite: 'strict', secure: 'auto' });
      return successEnvelope(null);
    });

    // The session is checked against the catalog (authenticateSession); the balance is read from the user's
    // row, since a charge changes the row and never reloads the catalog (as the account routes read a token).
    scope.get('/api/user/self', { config, onRequest: authenticateSession(services) }, async (request) => {
      const user = request.sessionUser;
      if (user === undefined) throw new Error('self runs after authenticateSession');
      const fresh = await services.repositories.users.get(user.id);
      // Deleted or disabled since the catalog loaded: refused as the session check will be once it reloads.
      if (fresh === undefined || !fresh.enabled) throw new GatewayError('invalid_api_key', 'This account no longer exists or has been disabled.');
      return successEnvelope({
        ...sessionUserView(user),
        quota: fresh.quota,
        unlimited_quota: fresh.unlimitedQuota,
        used_quota: fresh.usedQuota,
        request_count: fresh.requestCount,
      });
    });
  });
}
