import type { SubmittedTask } from '../../storage/tasks-repository.js';

/**
 * The statement that restores an accepted submit's state onto its `not_start` row (pending-submits.ts), for
 * the operator's one line on stderr: a parameterised statement and its parameters as a JSON array, in
 * order. No value is spliced into the SQL: an upstream id is whatever the upstream chose, and quote
 * doubling is not enough where a backslash escapes (MySQL's default), nor does it keep a newline off the
 * line. JSON writes quotes, backslashes and control characters escaped, so the line stays one line and
 * `JSON.parse` gives back each value exactly. The `?` placeholders are MySQL's and SQLite's; PostgreSQL's
 * are `$1` … `$6`, in the same order.
 */
export function formatRestoreSubmitted(taskId: number, submitted: SubmittedTask): string {
  const parameters = [submitted.channelId, submitted.keyFingerprint, submitted.upstreamModel, submitted.upstreamId, submitted.status, taskId];
  return `UPDATE tasks SET channel_id = ?, key_fingerprint = ?, upstream_model = ?, upstream_id = ?, status = ?, next_poll_at = 0 WHERE id = ? AND status = 'not_start' with parameters ${JSON.stringify(parameters)}`;
}
