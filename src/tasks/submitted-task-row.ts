import type { NewTask, SubmittedTask, TaskRow } from '../storage/tasks-repository.js';
import { boundTaskAnswer } from './bound-task-answer.js';

/**
 * Pure: the row an accepted submit's task will be once its submitted state is written (markSubmitted on
 * the row `insert` made at `createdAt`), for the client's answer when the database could not take that
 * write yet (src/relay/task-submit/pending-submits.ts). Its charge is not known here (`quota` null).
 */
export function submittedTaskRow(id: number, task: NewTask, createdAt: number, submitted: SubmittedTask, now: number): TaskRow {
  const finished = submitted.failReason !== undefined || submitted.status === 'success';
  return {
    id,
    public_id: task.publicId,
    kind: task.kind,
    request_id: task.requestId,
    user_id: task.userId,
    token_id: task.tokenId,
    channel_id: submitted.channelId,
    key_fingerprint: submitted.keyFingerprint,
    model: task.model,
    upstream_model: submitted.upstreamModel,
    upstream_id: submitted.upstreamId,
    status: submitted.status,
    progress: submitted.progress,
    properties: JSON.stringify(task.properties),
    result: boundTaskAnswer(submitted.result),
    fail_reason: submitted.failReason ?? null,
    quota: submitted.nothingCharged === true ? 0 : null,
    token_debited: null,
    user_debited: null,
    refunded: submitted.nothingCharged === true ? 1 : 0,
    lease_until: 0,
    next_poll_at: submitted.nextPollAt,
    created_at: createdAt,
    updated_at: now,
    completed_at: finished ? now : null,
  };
}
