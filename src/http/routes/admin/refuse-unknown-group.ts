import type { CatalogSnapshot } from '../../../catalog/catalog.js';
import { GatewayError } from '../../../errors/gateway-error.js';

/** A user or token in a group that does not exist could never authenticate, so refuse it when it is set. */
export function refuseUnknownGroup(snapshot: CatalogSnapshot, group: string | null | undefined, field = 'group'): void {
  if (group === undefined || group === null || snapshot.groupRatios.has(group)) return;
  throw new GatewayError('invalid_request', `${field}: group "${group}" does not exist; create it with POST /api/admin/groups first.`, { param: field });
}
