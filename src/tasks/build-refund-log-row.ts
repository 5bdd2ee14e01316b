import { noTokens } from '../relay/build-recovery-log-row.js';
import { refundLogStyle, type LogRow } from '../storage/logs-repository.js';
import type { TaskRow } from '../storage/tasks-repository.js';

/**
 * Pure: the log row of a failed task's refund. Its `quota` is the refund, negative, so the log's sum per
 * key or model is what was kept; `request_id` is the submit's, so the two rows read together.
 */
export function buildRefundLogRow(task: TaskRow, refunded: number, tokenName: string | undefined, now: number): LogRow {
  return {
    request_id: task.request_id,
    created_at: now,
    user_id: task.user_id,
    token_id: task.token_id,
    token_name: tokenName ?? null,
    channel_id: task.channel_id,
    model: task.model,
    upstream_model: task.upstream_model,
    style: refundLogStyle,
    path: refundPath(task),
    is_stream: 0,
    status: 0,
    ...noTokens,
    quota: -refunded,
    latency_ms: 0,
    first_token_ms: null,
    attempts: '[]',
    warnings: '[]',
    usage_source: 'refund',
    ip: null,
    error: `Refunded: ${task.fail_reason ?? 'the task failed'}`.slice(0, 1000),
  };
}

/** Where the client reads the task refunded. */
function refundPath(task: TaskRow): string {
  if (task.kind === 'suno') return `/suno/fetch/${task.public_id}`;
  if (task.kind === 'mj') return `/mj/task/${task.public_id}/fetch`;
  return `/v1/videos/${task.public_id}`;
}
