import type { ConversionContext } from '../../../canonical/conversion.js';

/** The golden tests' context: ids count `prefix_1`, `prefix_2`…; the clock is fixed. */
export function fixedContext(requestedModel = 'gemini-2.5-flash'): ConversionContext {
  let counter = 0;
  return { newId: (prefix) => `${prefix}_${++counter}`, now: 1760000000, requestedModel };
}
