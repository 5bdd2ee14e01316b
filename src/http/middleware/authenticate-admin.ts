import { timingSafeEqual } from 'node:crypto';
import type { onRequestAsyncHookHandler } from 'fastify';
import { bearerValue } from '../../auth/parse-api-key.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { hashApiKey } from '../../security/api-keys.js';
import type { AppServices } from '../app-services.js';
import { repeatedAuthorizationError } from './authenticate-caller.js';

/** /api/admin/* takes the root admin key as a Bearer token; its hash lives in the in-memory settings. */
export function authenticateAdmin(services: AppServices): onRequestAsyncHookHandler {
  return async function authenticateAdminHook(request) {
    // Node keeps the first of two Authorization lines: which admin key was meant is not known.
    const repeated = repeatedAuthorizationError(request.raw.rawHeaders, 'openai');
    if (repeated !== undefined) throw repeated;
    const presented = bearerValue(request.headers.authorization);
    if (presented === undefined) throw new GatewayError('missing_api_key', 'Admin key required: send `Authorization: Bearer <admin key>`.');
    const expected = services.catalog.snapshot.settings.adminKeyHash;
    const actual = hashApiKey(presented);
    if (expected === undefined || !timingSafeEqual(Buffer.from(actual), Buffer.from(expected.padEnd(actual.length).slice(0, actual.length)))) {
      throw new GatewayError('invalid_api_key', 'Incorrect admin key.');
    }
  };
}
