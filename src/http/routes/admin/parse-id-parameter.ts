import { GatewayError } from '../../../errors/gateway-error.js';

/** The `:id` of a route as a positive integer; anything else is a malformed request (400), not a missing entity. */
export function parseIdParameter(params: unknown): number {
  const value = (params as Record<string, unknown> | undefined)?.id;
  if (typeof value !== 'string' || !/^[1-9]\d{0,14}$/.test(value)) {
    throw new GatewayError('invalid_request', 'The id in the path must be a positive integer.', { param: 'id' });
  }
  return Number(value);
}
