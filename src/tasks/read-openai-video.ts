import { isRecord } from '../convert/shared/is-record.js';
import { readProgress, taskStatusFromOpenaiVideo, type TaskObservation } from './task-status.js';

/**
 * Pure: what an OpenAI-style video object (protocols.md §4: `id`, `status`, `progress`, `error`) says about
 * its task. Undefined when the answer is not such an object or its status is one we do not know.
 */
export function readOpenaiVideo(json: unknown): (TaskObservation & { upstreamId: string | undefined }) | undefined {
  if (!isRecord(json)) return undefined;
  const status = taskStatusFromOpenaiVideo(json.status);
  if (status === undefined) return undefined;
  const upstreamId = typeof json.id === 'string' && json.id !== '' ? json.id : typeof json.task_id === 'string' && json.task_id !== '' ? json.task_id : undefined;
  const observation: TaskObservation & { upstreamId: string | undefined } = { status, upstreamId };
  const progress = readProgress(json.progress);
  if (progress !== undefined) observation.progress = progress;
  if (status === 'success') observation.progress = 100;
  if (status === 'failure') observation.failReason = failReasonOf(json);
  return observation;
}

function failReasonOf(json: Record<string, unknown>): string {
  const error = json.error;
  if (isRecord(error) && typeof error.message === 'string' && error.message !== '') return error.message;
  if (typeof error === 'string' && error !== '') return error;
  return json.status === 'cancelled' ? 'The task was cancelled upstream.' : 'The upstream reported the task failed.';
}

/**
 * The upstream's answer as kept in the task row: inline video bytes (a `b64_json` or data URL some
 * upstreams put in the object) are dropped, so a row stays small.
 */
export function storableVideoAnswer(json: Record<string, unknown>): string {
  return JSON.stringify(json, (key, value: unknown) => (typeof value === 'string' && value.length > 4096 && (key.includes('b64') || value.startsWith('data:')) ? '[omitted]' : value));
}
