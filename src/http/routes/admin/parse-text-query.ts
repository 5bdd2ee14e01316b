import { GatewayError } from '../../../errors/gateway-error.js';

/** The 400 for a query parameter given twice (`?p=a&p=b`): which one was meant is a guess, so none is taken. */
export function repeatedQueryParameter(name: string): GatewayError {
  return new GatewayError('invalid_request', `Query parameter ${name} is given more than once.`, { param: name });
}

/** Reads one text query parameter; absent or empty → undefined, given twice → 400 naming it (never read as absent). */
export function parseTextQuery(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw repeatedQueryParameter(name);
  return value;
}
