import type { ConversionContext } from '../../canonical/conversion.js';

/** The fixed context of the golden files: ids count per call (`chatcmpl-1`, `call_2` …), the clock stands at 1760000000. */
export function createTestContext(requestedModel = 'client-model'): ConversionContext {
  let counter = 0;
  return {
    newId: (prefix) => `${prefix}${++counter}`,
    now: 1760000000,
    requestedModel,
  };
}
