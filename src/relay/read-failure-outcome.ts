import { describeFailure } from '../providers/upstream-client.js';
import type { AttemptOutcome } from './run-failover.js';
import type { UsageMeter } from './usage-meter.js';

/**
 * What an attempt whose read of the upstream's answer threw, before anything reached the client, comes to:
 * `served` when the client left (the upstream answered: billed as a stream left early is), else a failure
 * as the socket saw it — a timeout (504) or a connection failure (502) — which the failover retries.
 */
export function readFailureOutcome(error: unknown, meter: UsageMeter, status: number): AttemptOutcome<{ status: number }> {
  if (meter.clientAborted) return { kind: 'served', value: { status }, status };
  return { kind: 'failed', failure: describeFailure(error) };
}
