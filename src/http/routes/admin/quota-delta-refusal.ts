import { GatewayError } from '../../../errors/gateway-error.js';

/**
 * Pure: the 400 for a balance adjustment the database refused. A balance stays between 0 and
 * Number.MAX_SAFE_INTEGER: past that bound JavaScript reads it rounded, and every later charge and
 * adjustment of it would be inexact.
 */
export function quotaDeltaRefusal(balance: number, delta: number): GatewayError {
  const outcome = balance + delta > Number.MAX_SAFE_INTEGER ? `exceed ${Number.MAX_SAFE_INTEGER}, the largest exact balance` : 'become negative';
  return new GatewayError('invalid_request', `delta: the balance would ${outcome} (balance ${balance}, delta ${delta}).`, { param: 'delta' });
}
