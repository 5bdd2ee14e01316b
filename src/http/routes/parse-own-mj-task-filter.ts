import { GatewayError } from '../../errors/gateway-error.js';
import type { OwnTaskFilter } from '../../storage/tasks-repository.js';
import { publicTaskIdPattern } from '../../tasks/public-task-id.js';
import { parseIntegerQuery } from './admin/parse-integer-query.js';
import { parseTextQuery } from './admin/parse-text-query.js';

/**
 * The filters of `GET /api/mj/self`, new-api's names and units: `mj_id` (here the public id the gateway
 * answered, `task_…`: no client ever saw the proxy's), `start_timestamp` / `end_timestamp` (the submit
 * time in unix ms, both inclusive, as new-api compares its `submit_time`; its console sends
 * `Date.parse(…)`). Empty is none (new-api's console sends `mj_id=` unset); a value no task could match
 * → 400 naming it, in the `/api` envelope.
 */
export function parseOwnMjTaskFilter(query: unknown): Omit<OwnTaskFilter, 'kind'> {
  const publicId = parseTextQuery(query, 'mj_id');
  if (publicId !== undefined && !publicTaskIdPattern.test(publicId)) {
    throw new GatewayError('invalid_request', 'Query parameter mj_id must be a task id as the gateway answered it (task_ and 32 letters or digits).', { param: 'mj_id' });
  }
  const end = parseIntegerQuery(query, 'end_timestamp');
  return { publicId, from: parseIntegerQuery(query, 'start_timestamp'), to: end === undefined ? undefined : end + 1 };
}
