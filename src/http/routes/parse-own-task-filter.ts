import { GatewayError } from '../../errors/gateway-error.js';
import type { OwnTaskFilter } from '../../storage/tasks-repository.js';
import { publicTaskIdPattern } from '../../tasks/public-task-id.js';
import type { TaskStatus } from '../../tasks/task-status.js';
import { parseTextQuery } from './admin/parse-text-query.js';
import { parseTimeRange } from './admin/parse-time-range.js';

const statuses: readonly TaskStatus[] = ['not_start', 'submitted', 'queued', 'in_progress', 'success', 'failure'];
/** The `kind` column's values: every video platform (OpenAI, Kling, Tencent VOD) is `video`. */
const kinds = ['video', 'suno', 'mj'] as const;

/**
 * The filters of `GET /api/task/self`: `task_id` (a public id, `task_…`), `status` (as stored or as
 * new-api's upper case: `SUCCESS`, `in_progress`), `kind` (`video`, `suno`, `mj`), `start` / `end` (unix
 * ms, created from inclusive, until exclusive) or new-api's `start_timestamp` / `end_timestamp` (unix
 * seconds, both inclusive; parse-time-range.ts), which its console sends. A value none of the user's tasks could hold → 400 naming
 * it, in the `/api` envelope; an upstream id given as `task_id` says so.
 */
export function parseOwnTaskFilter(query: unknown): OwnTaskFilter {
  const publicId = parseTextQuery(query, 'task_id');
  if (publicId !== undefined && !publicTaskIdPattern.test(publicId)) {
    throw new GatewayError('invalid_request', 'Query parameter task_id must be a task id as the gateway answered it (task_ and 32 letters or digits).', { param: 'task_id' });
  }
  const status = parseTextQuery(query, 'status')?.toLowerCase();
  if (status !== undefined && !(statuses as readonly string[]).includes(status)) {
    throw new GatewayError('invalid_request', `Query parameter status must be one of ${statuses.map((name) => name.toUpperCase()).join(', ')}.`, { param: 'status' });
  }
  const kind = parseTextQuery(query, 'kind');
  if (kind !== undefined && !(kinds as readonly string[]).includes(kind)) throw new GatewayError('invalid_request', `Query parameter kind must be one of ${kinds.join(', ')}.`, { param: 'kind' });
  const { from, to } = parseTimeRange(query);
  return { publicId, status: status as TaskStatus | undefined, kind, from, to };
}
