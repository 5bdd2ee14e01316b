import type { CatalogSnapshot } from '../../../catalog/catalog.js';
import { refuseUnknownGroup } from './refuse-unknown-group.js';

/**
 * A channel serving a group that does not exist serves nobody: refuse its `groups` with the same 400 as a
 * user's or token's unknown `group` (naming the field `groups`). Undefined (an update that leaves them) passes.
 */
export function refuseUnknownGroups(snapshot: CatalogSnapshot, groups: readonly string[] | undefined): void {
  for (const group of groups ?? []) refuseUnknownGroup(snapshot, group, 'groups');
}
