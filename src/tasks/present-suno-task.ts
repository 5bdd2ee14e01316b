import type { TaskRow } from '../storage/tasks-repository.js';
import { readJsonObject } from './read-json-object.js';
import { taskDtoStatus, type TaskStatus } from './task-status.js';

/**
 * Pure: a Suno task as new-api's TaskDto (protocols.md §0, §2): the public id, `MUSIC` / `LYRICS`, the
 * upper-case status, `"NN%"` progress, times in Unix seconds, and `data` as the upstream last reported it
 * (the clips of a song, or the lyrics; null before it reports any). Not the channel, the charge or the
 * upstream's task id.
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
    progress: `${status === 'success' ? 100 : task.progress}%`,
    data: reported?.data ?? null,
  };
}
