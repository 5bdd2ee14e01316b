import { GatewayError } from '../../../errors/gateway-error.js';
import { parseIntegerQuery } from './parse-integer-query.js';

/** Seconds past this (year 5138) are refused: a unix-ms value sent as new-api's seconds would match nothing. */
const largestSeconds = 99_999_999_999;

/**
 * A time range of the console's lists — the request log's admin list and usage (`/api/admin/logs`,
 * `/logs/usage`), a user's own log (`/api/log/self`, `/stat`) and tasks (`/api/task/self`, whose new-api
 * `submit_time` is unix seconds too) — in either spelling: the gateway's `start` / `end` (unix ms, end
 * exclusive) or new-api's `start_timestamp` / `end_timestamp` (unix seconds, both inclusive, 0 = unbounded
 * — what new-api's console sends), converted to ms: `[start_timestamp × 1000, (end_timestamp + 1) × 1000)`.
 * One end given both ways → 400 naming both (which would win is a guess).
 */
export function parseTimeRange(query: unknown): { from?: number; to?: number } {
  return {
    from: oneOf(query, 'start', 'start_timestamp', (seconds) => (seconds === 0 ? undefined : seconds * 1000)),
    to: oneOf(query, 'end', 'end_timestamp', (seconds) => (seconds === 0 ? undefined : (seconds + 1) * 1000)),
  };
}

function oneOf(query: unknown, msName: string, secondsName: string, toMs: (seconds: number) => number | undefined): number | undefined {
  const ms = parseIntegerQuery(query, msName);
  const seconds = parseIntegerQuery(query, secondsName);
  if (ms !== undefined && seconds !== undefined) {
    throw new GatewayError('invalid_request', `Query parameters ${msName} (unix ms) and ${secondsName} (unix seconds) give the same bound; send one of them.`, { param: secondsName });
  }
  if (seconds === undefined) return ms;
  if (Math.abs(seconds) > largestSeconds) {
    throw new GatewayError('invalid_request', `Query parameter ${secondsName} must be unix seconds (at most ${largestSeconds}); ${msName} takes unix ms.`, { param: secondsName });
  }
  return toMs(seconds);
}
