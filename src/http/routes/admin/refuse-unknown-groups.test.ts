import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../../../catalog/catalog.js';
import { GatewayError } from '../../../errors/gateway-error.js';
import { refuseUnknownGroups } from './refuse-unknown-groups.js';

const snapshot = { groupRatios: new Map([['default', 1], ['vip', 0.5]]) } as unknown as CatalogSnapshot;

describe('refuseUnknownGroups', () => {
  it('passes known groups and an absent list', () => {
    expect(() => refuseUnknownGroups(snapshot, ['default', 'vip'])).not.toThrow();
    expect(() => refuseUnknownGroups(snapshot, undefined)).not.toThrow();
  });

  it('refuses the first unknown group with a 400 naming the field `groups`', () => {
    let refusal: unknown;
    try {
      refuseUnknownGroups(snapshot, ['vip', 'atlantis']);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({ status: 400, param: 'groups', message: expect.stringContaining('groups: group "atlantis" does not exist') });
  });
});
