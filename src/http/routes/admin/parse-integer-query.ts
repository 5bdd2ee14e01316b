import { GatewayError } from '../../../errors/gateway-error.js';

/**
 * Reads one whole-number query parameter; absent → undefined, given twice (`?p=1&p=2`: which one was meant
 * is a guess) or anything but an integer → 400 naming it.
 */
export function parseIntegerQuery(query: unknown, name: string): number | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined || value === '') return undefined;
  if (Array.isArray(value)) throw new GatewayError('invalid_request', `Query parameter ${name} is given more than once.`, { param: name });
  if (typeof value !== 'string' || !/^-?\d{1,15}$/.test(value)) {
    throw new GatewayError('invalid_request', `Query parameter ${name} must be an integer.`, { param: name });
  }
  return Number(value);
}
