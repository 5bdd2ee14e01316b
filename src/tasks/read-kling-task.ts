import { isRecord } from '../convert/shared/is-record.js';
import type { TaskObservation } from './task-status.js';

/** What Kling's query answer says (protocols.md §3.2), with the video's URL once it succeeded. */
export interface KlingTaskState {
  observation: TaskObservation;
  videoUrl: string | undefined;
}

/**
 * Pure: `submitted` → queued, `processing` → in_progress, `succeed` → success with `task_result.videos[0].url`
 * (a success without a URL is a failure), `failed` → failure with `task_status_msg`. Undefined for an
 * answer whose `code` is not 0 or whose status is unknown.
 */
export function readKlingTask(json: unknown): KlingTaskState | undefined {
  if (!isRecord(json) || json.code !== 0 || !isRecord(json.data)) return undefined;
  const data = json.data;
  const message = typeof data.task_status_msg === 'string' && data.task_status_msg !== '' ? data.task_status_msg : undefined;
  switch (data.task_status) {
    case 'submitted':
      return { observation: { status: 'queued' }, videoUrl: undefined };
    case 'processing':
      return { observation: { status: 'in_progress' }, videoUrl: undefined };
    case 'failed':
      return { observation: { status: 'failure', failReason: message ?? 'The task failed at Kling.' }, videoUrl: undefined };
    case 'succeed': {
      const result = isRecord(data.task_result) ? data.task_result : {};
      const first = Array.isArray(result.videos) && isRecord(result.videos[0]) ? result.videos[0] : undefined;
      const url = typeof first?.url === 'string' && first.url !== '' ? first.url : undefined;
      if (url === undefined) return { observation: { status: 'failure', failReason: 'Kling finished the task without a video.' }, videoUrl: undefined };
      return { observation: { status: 'success', progress: 100 }, videoUrl: url };
    }
    default:
      return undefined;
  }
}
