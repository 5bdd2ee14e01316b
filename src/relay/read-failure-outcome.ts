import { describeFailure } from '../providers/upstream-client.js';
import type { AttemptOutcome } from './run-failover.js';
import type { UsageMeter } from './usage-meter.js';

/**
 * What an attempt whose read of the upstream's answer threw, before anything reached the client, comes to:
 * `served` when the client left (the upstream answered: billed as a stream left early is), else a failure
 * as the socket saw it — a timeout (504) or a connection failure (502) — which the failover retries. A read
 * that failed after the upstream had produced part of its answer (a non-streaming client's answer, held
 * whole, cut mid-way) is an answered failure: billed what was produced unless a later attempt answers.
 */
export function readFailureOutcome(error: unknown, meter: UsageMeter, status: number): AttemptOutcome<{ status: number }> {
  if (meter.clientAborted) return { kind: 'served', value: { status }, status };
  const failure = describeFailure(error);
  if (meter.upstreamUsage !== undefined || meter.reportedInput !== undefined || meter.firstTokenAt !== undefined) return { kind: 'failed', failure, upstreamAnswered: true };
  return { kind: 'failed', failure };
}
