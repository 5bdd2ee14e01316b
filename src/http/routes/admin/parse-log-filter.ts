import { largestRowId } from '../../../storage/largest-row-id.js';
import { GatewayError } from '../../../errors/gateway-error.js';
import type { LogFilter, OwnLogFilter } from '../../../storage/logs-repository.js';
import type { JsonSchema } from './describe-zod-schema.js';
import { parseIntegerQuery } from './parse-integer-query.js';
import { parseTextQuery } from './parse-text-query.js';
import { parseTimeRange } from './parse-time-range.js';

/** The log filters of the admin API, for the OpenAPI document. */
export const logFilterQuerystring: Record<string, JsonSchema> = {
  start: { type: 'integer', description: 'From this time, unix milliseconds (inclusive).' },
  end: { type: 'integer', description: 'Until this time, unix milliseconds (exclusive).' },
  start_timestamp: { type: 'integer', description: "From this second, unix seconds (inclusive; 0: no bound), new-api's spelling of start; not with start." },
  end_timestamp: { type: 'integer', description: "Until this second, unix seconds (inclusive; 0: no bound), new-api's spelling of end; not with end." },
  user_id: { type: 'integer' },
  token_id: { type: 'integer' },
  channel_id: { type: 'integer' },
  model: { type: 'string', description: 'The model the client asked for.' },
  status: { type: 'integer', description: 'The HTTP status answered.' },
  request_id: { type: 'string' },
};

/** The request log's filters (a bad value or one given twice → 400 naming it), its time range in either spelling (parseTimeRange). */
export function parseLogFilter(query: unknown): LogFilter {
  return {
    ...parseTimeRange(query),
    userId: parseColumnQuery(query, 'user_id'),
    tokenId: parseColumnQuery(query, 'token_id'),
    channelId: parseColumnQuery(query, 'channel_id'),
    model: parseTextQuery(query, 'model'),
    status: parseColumnQuery(query, 'status'),
    requestId: parseTextQuery(query, 'request_id'),
  };
}

/** The filters a user may put on their own log (`GET /api/log/self`): not whose rows, nor which channel. */
const ownLogFilterNames = ['start', 'end', 'start_timestamp', 'end_timestamp', 'token_id', 'model', 'status', 'request_id'] as const;

/**
 * The admin list's filters a user may use on their own log, parsed as the admin list parses them (a bad
 * value → 400 naming it; the time range in either spelling). `user_id` and `channel_id` are not read: the
 * rows are the session user's, and the channel is not theirs to see. A `token_id` of another user's token
 * matches none of their rows.
 */
export function parseOwnLogFilter(query: unknown): OwnLogFilter {
  const given = (query ?? {}) as Record<string, unknown>;
  const { userId: _userId, channelId: _channelId, ...own } = parseLogFilter(Object.fromEntries(ownLogFilterNames.map((name) => [name, given[name]])));
  return own;
}

/** A filter on a 32-bit column: a value no row can hold is refused (400 naming it), not sent to the database. */
function parseColumnQuery(query: unknown, name: string): number | undefined {
  const value = parseIntegerQuery(query, name);
  if (value !== undefined && Math.abs(value) > largestRowId) throw new GatewayError('invalid_request', `Query parameter ${name} must be at most ${largestRowId}.`, { param: name });
  return value;
}
