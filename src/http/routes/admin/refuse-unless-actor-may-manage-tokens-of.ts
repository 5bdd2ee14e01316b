import type { FastifyRequest } from 'fastify';
import type { UserRecord } from '../../../catalog/catalog-records.js';
import { GatewayError } from '../../../errors/gateway-error.js';

/**
 * Token writes follow the user rule (refuse-unless-actor-may-manage.ts), checked against every owner the
 * write touches (the token's current owner and any new one): an admin session may write the tokens of
 * ordinary users, and its own — a token of its own only spends its own wallet, which it cannot top up.
 * A root's or another admin's token is refused: its key is that account's credential.
 */
export function refuseUnlessActorMayManageTokensOf(request: FastifyRequest, ...owners: (Pick<UserRecord, 'id' | 'role'> | undefined)[]): void {
  const actor = request.sessionUser;
  if (actor?.role !== 'admin') return;
  if (owners.some((owner) => owner !== undefined && owner.role !== 'user' && owner.id !== actor.id)) {
    throw new GatewayError('forbidden', "An admin may manage the tokens of ordinary users and its own only; use a root login or the admin key.");
  }
}
