import type { FastifyRequest } from 'fastify';
import type { UserRole } from '../../../catalog/catalog-records.js';
import { GatewayError } from '../../../errors/gateway-error.js';

/**
 * The admin key and root sessions manage everyone; an admin session manages ordinary users only, so an
 * admin cannot promote itself or take over a root account (new-api's AdminAuth/RootAuth split).
 */
export function refuseUnlessActorMayManage(request: FastifyRequest, ...roles: (UserRole | undefined)[]): void {
  if (request.sessionUser?.role !== 'admin') return;
  if (roles.some((role) => role !== undefined && role !== 'user')) {
    throw new GatewayError('forbidden', 'An admin may manage ordinary users only; use a root login or the admin key.');
  }
}
