import type { AttemptOutcome } from './run-failover.js';

/** A channel whose `model_mapping` loops cannot serve: the attempt fails (over) as a connection failure would. */
export function mappingLoopFailure(channelId: number, loop: readonly string[]): AttemptOutcome<{ status: number }> {
  return { kind: 'failed', failure: { kind: 'connection', message: `model_mapping of channel ${channelId} loops: ${loop.join(' → ')}` } };
}
