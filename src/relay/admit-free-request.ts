import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import { buildRateChecks } from '../limits/build-rate-checks.js';
import { consumeRateChecks, type ConsumedRateChecks } from './consume-rate-checks.js';
import type { RelayServices } from './relay-services.js';

/**
 * A request that costs no quota but still calls an upstream (the Seedance asset routes): it counts once
 * against every requests-per-minute limit of its key, its user and its address, as any relay request does
 * (429 when one is full), and against no tokens window, since it uses no tokens (a full tpm window does
 * not refuse it). Nothing is reserved.
 */
export function admitFreeRequest(services: RelayServices, caller: AuthenticatedCaller, ip: string): Promise<ConsumedRateChecks> {
  const checks = buildRateChecks(caller, ip, 0, services.catalog.snapshot.settings).filter((check) => check.kind === 'requests');
  return consumeRateChecks(services, checks);
}
