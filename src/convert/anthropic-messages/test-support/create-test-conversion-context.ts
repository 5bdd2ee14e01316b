import type { ConversionContext } from '../../../canonical/conversion.js';

/** The fixed context of every golden test: ids count per prefix (`msg_1`, `msg_2`, `toolu_1`), the clock stands still. */
export function createTestConversionContext(requestedModel = 'claude-sonnet-4-5'): ConversionContext {
  const counters = new Map<string, number>();
  return {
    newId(prefix) {
      const next = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, next);
      return `${prefix}${next}`;
    },
    now: 1760000000,
    requestedModel,
  };
}
