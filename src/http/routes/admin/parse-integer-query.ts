import { GatewayError } from '../../../errors/gateway-error.js';
import { repeatedQueryParameter } from './parse-text-query.js';

/**
 * Reads one whole-number query parameter; absent → undefined, given twice (`?p=1&p=2`: which one was meant
 * is a guess) or anything but an integer → 400 naming it.
 */
export function parseIntegerQuery(query: unknown, name: string): number | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined || value === '') return undefined;
  if (Array.isArray(value)) throw repeatedQueryParameter(name);
  if (typeof value !== 'string' || !/^-?\d{1,15}$/.test(value)) {
    throw new GatewayError('invalid_request', `Query parameter ${name} must be an integer.`, { param: name });
  }
  return Number(value);
}
