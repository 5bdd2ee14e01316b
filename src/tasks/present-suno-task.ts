import type { TaskRow } from '../storage/tasks-repository.js';
import { readJsonObject } from './read-json-object.js';
import { taskDtoStatus, type TaskStatus } from './task-status.js';

/**
 * Pure: a Suno task as new-api's TaskDto (protocols.md §0, §2): the public id, `MUSIC` / `LYRICS`, the
 * upper-case status, `"NN%"` progress, times in Unix seconds, and `data` as the upstream last reported it
 * (the clips of a song, or the lyrics; null before it reports any), the upstream's task id in it replaced
 * by the public one. Not the channel or the charge.
 */
export function presentSunoTask(task: TaskRow): Record<string, unknown> {
  const status = task.status as TaskStatus;
  const properties = readJsonObject(task.properties);
  // The row keeps the submit answer until the first poll, then the upstream's task record.
  const record = readJsonObject(task.result);
  const reported = record !== undefined && 'task_id' in record ? record : undefined;
  return {
    task_id: task.public_id,
    action: typeof properties?.action === 'string' ? properties.action : '',
    status: taskDtoStatus(status),
    fail_reason: status === 'failure' ? (task.fail_reason ?? 'The task failed.') : '',
    submit_time: Math.floor(task.created_at / 1000),
    start_time: typeof reported?.start_time === 'number' ? reported.start_time : 0,
    finish_time: task.completed_at === null ? 0 : Math.floor(task.completed_at / 1000),
    // new-api shows a finished task, failed or not, at 100%.
    progress: `${status === 'success' || status === 'failure' ? 100 : task.progress}%`,
    data: withPublicId(reported?.data ?? null, task.upstream_id, task.public_id),
  };
}

/** The reported data with the upstream's task id (lyrics carry it as their `id`) shown as the public one. */
function withPublicId(data: unknown, upstreamId: string | null, publicId: string): unknown {
  if (upstreamId === null || upstreamId === '' || data === null) return data;
  return JSON.parse(JSON.stringify(data, (_key, value: unknown) => (value === upstreamId ? publicId : value))) as unknown;
}
