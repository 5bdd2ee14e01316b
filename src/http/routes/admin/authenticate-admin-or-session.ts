import type { onRequestAsyncHookHandler } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.js';
import type { AppServices } from '../../app-services.js';
import { authenticateAdmin } from '../../middleware/authenticate-admin.js';
import { authenticateSession, presentedSessionCookie } from '../../middleware/authenticate-session.js';
import { refuseNonJsonSessionWrite } from '../../middleware/refuse-non-json-session-write.js';

/**
 * The admin API takes the root admin key (Bearer) or the console login of a root or admin user. A request
 * that sends an Authorization header is judged by that header alone, so a wrong key never falls back to a cookie.
 * A session's writes must be JSON (refuse-non-json-session-write.ts); the admin key's need not.
 */
export function authenticateAdminOrSession(services: AppServices): onRequestAsyncHookHandler {
  const adminKey = authenticateAdmin(services);
  const session = authenticateSession(services);
  return async function authenticateAdminOrSessionHook(request, reply) {
    if (request.headers.authorization !== undefined || presentedSessionCookie(request) === undefined) {
      await adminKey.call(this, request, reply);
      return;
    }
    await session.call(this, request, reply);
    const role = request.sessionUser?.role;
    if (role !== 'root' && role !== 'admin') throw new GatewayError('forbidden', 'Only administrators may use the admin API.');
    refuseNonJsonSessionWrite(request);
  };
}
