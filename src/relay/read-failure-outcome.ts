import { UpstreamBodyTooLarge } from '../providers/upstream-body.js';
import { describeFailure } from '../providers/upstream-client.js';
import { SseEventTooLargeError } from '../streaming/decode-sse.js';
import type { AttemptOutcome } from './run-failover.js';
import type { UsageMeter } from './usage-meter.js';

/**
 * What an attempt whose read of the upstream's answer threw, before anything reached the client, comes to:
 * `served` when the client left (the upstream answered: billed as a stream left early is), else a failure
 * as the socket saw it — a timeout (504) or a connection failure (502) — which the failover retries. A read
 * that failed after the upstream had produced part of its answer (a non-streaming client's answer, held
 * whole, cut mid-way) is an answered failure: billed what was produced unless a later attempt answers.
 * An opening alone (Anthropic's message_start, its input) is no answer: nothing was produced.
 */
export function readFailureOutcome(error: unknown, meter: UsageMeter, status: number): AttemptOutcome<{ status: number }> {
  if (meter.clientAborted) return { kind: 'served', value: { status }, status };
  const failure = describeFailure(error);
  // The gateway's own bound (an answer or one event too large) gave up on it: nothing the client could have had.
  const gaveUp = error instanceof UpstreamBodyTooLarge || error instanceof SseEventTooLargeError;
  if (!gaveUp && (meter.upstreamUsage !== undefined || meter.firstTokenAt !== undefined)) return { kind: 'failed', failure, upstreamAnswered: true };
  return { kind: 'failed', failure };
}
