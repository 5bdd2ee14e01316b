import type { UserRecord } from '../catalog/catalog-records.js';
import type { UserFields } from '../storage/users-repository.js';

/**
 * Pure: whether a change to a user ends its console sessions. A new password (the old one may have
 * leaked), a new role (a session must not keep the rights it was opened with) and a disable do; re-sending
 * the current role or disabling a disabled user does not.
 */
export function changeEndsSessions(current: Pick<UserRecord, 'role' | 'enabled'>, change: Partial<Pick<UserFields, 'passwordHash' | 'role' | 'enabled'>>): boolean {
  if (change.passwordHash !== undefined) return true;
  if (change.role !== undefined && change.role !== current.role) return true;
  return change.enabled === false && current.enabled;
}
