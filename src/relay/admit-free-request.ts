import type { FastifyRequest } from 'fastify';
import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import { buildRateChecks } from '../limits/build-rate-checks.js';
import { consumeRateChecks, type ConsumedRateChecks } from './consume-rate-checks.js';
import { currentCaller } from './current-caller.js';
import type { RelayServices } from './relay-services.js';

export interface FreeAdmission extends ConsumedRateChecks {
  /** The caller as the catalog has it now (current-caller.ts). */
  caller: AuthenticatedCaller;
}

/**
 * A request that costs no quota but still calls an upstream (the Seedance asset routes): it counts once
 * against every requests-per-minute limit of its key, its user and its address, as any relay request does
 * (429 when one is full), and against no tokens window, since it uses no tokens (a full tpm window does
 * not refuse it). Nothing is reserved. The caller is read again first, as a relay request's is: a key
 * switched off since its headers were read is refused (401/403) before any upstream call.
 */
export async function admitFreeRequest(services: RelayServices, request: FastifyRequest): Promise<FreeAdmission> {
  const caller = currentCaller(services, request, services.now());
  const checks = buildRateChecks(caller, request.ip, 0, services.catalog.snapshot.settings).filter((check) => check.kind === 'requests');
  return { caller, ...(await consumeRateChecks(services, checks)) };
}
