import { GatewayError } from '../../../errors/gateway-error.js';

export function entityNotFound(kind: string, key: number | string): GatewayError {
  return new GatewayError('not_found', `${kind} ${typeof key === 'number' ? key : `"${key}"`} not found.`);
}
