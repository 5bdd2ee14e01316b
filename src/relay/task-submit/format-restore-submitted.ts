import { operatorStatement } from '../../storage/operator-statement.js';
import type { SubmittedTask } from '../../storage/tasks-repository.js';

/**
 * The statement that restores an accepted submit's state onto its `not_start` row (pending-submits.ts), for
 * the operator's one line on stderr, parameterised (operator-statement.ts).
 */
export function formatRestoreSubmitted(taskId: number, submitted: SubmittedTask): string {
  const parameters = [submitted.channelId, submitted.keyFingerprint, submitted.upstreamModel, submitted.upstreamId, submitted.status, taskId];
  return operatorStatement("UPDATE tasks SET channel_id = ?, key_fingerprint = ?, upstream_model = ?, upstream_id = ?, status = ?, next_poll_at = 0 WHERE id = ? AND status = 'not_start'", parameters);
}
