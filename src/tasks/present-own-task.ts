import type { OwnTaskRow } from '../storage/tasks-repository.js';
import { readJsonObject } from './read-json-object.js';
import { showPublicTaskIds } from './show-public-task-ids.js';
import { taskDtoStatus, type TaskStatus } from './task-status.js';

/**
 * Pure: one of a user's tasks as their own list shows it (`GET /api/task/self`), whatever its kind: the
 * public id, the kind (`video` — OpenAI, Kling and Tencent VOD alike —, `suno`, `mj`), the action (Suno's
 * `MUSIC` / `LYRICS`, Midjourney's `IMAGINE`…, a video's `GENERATE` or `REMIX`), the public id of the task
 * it continues, the model, new-api's upper-case status, progress 0–100, the charge settled at submit
 * (null until settled) and whether it was given back, the failure reason (the upstream's ids in it shown
 * as public ones), and the times in unix ms. Never the upstream's task id, the channel or its key.
 */
export function presentOwnTask(task: OwnTaskRow): Record<string, unknown> {
  const status = task.status as TaskStatus;
  const properties = readJsonObject(task.properties) ?? {};
  const quota = task.quota === null ? null : Number(task.quota);
  return {
    task_id: task.public_id,
    kind: task.kind,
    action: actionOf(task.kind, properties),
    origin_task_id: originOf(properties),
    token_id: task.token_id,
    model: task.model,
    status: taskDtoStatus(status),
    progress: status === 'success' ? 100 : task.progress,
    quota,
    // A task the upstream failed in its submit answer was never charged: nothing was given back.
    refunded: Number(task.refunded) === 1 && quota !== null && quota > 0,
    fail_reason: status === 'failure' ? showPublicTaskIds(task, properties)(task.fail_reason ?? 'The task failed.') : null,
    created_at: task.created_at,
    updated_at: task.updated_at,
    completed_at: task.completed_at,
  };
}

function actionOf(kind: string, properties: Record<string, unknown>): string {
  if (typeof properties.action === 'string') return properties.action;
  if (kind === 'video') return typeof properties.remixed_from === 'string' ? 'REMIX' : 'GENERATE';
  return '';
}

/** A remix's origin, or the Midjourney task an action continues: public ids the user already holds. */
function originOf(properties: Record<string, unknown>): string | null {
  if (typeof properties.remixed_from === 'string') return properties.remixed_from;
  if (typeof properties.origin === 'string') return properties.origin;
  return null;
}
