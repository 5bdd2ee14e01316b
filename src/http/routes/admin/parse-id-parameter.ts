import { GatewayError } from '../../../errors/gateway-error.js';
import { largestRowId } from '../../../storage/largest-row-id.js';

/**
 * The `:id` of a route as a positive integer; anything else is a malformed request (400), not a missing
 * entity. An id past any row's (largest-row-id.ts) is a missing entity: 404, without asking the database.
 */
export function parseIdParameter(params: unknown): number {
  const value = (params as Record<string, unknown> | undefined)?.id;
  if (typeof value !== 'string' || !/^[1-9]\d{0,14}$/.test(value)) {
    throw new GatewayError('invalid_request', 'The id in the path must be a positive integer.', { param: 'id' });
  }
  const id = Number(value);
  if (id > largestRowId) throw new GatewayError('not_found', `No entity has id ${value}.`);
  return id;
}
