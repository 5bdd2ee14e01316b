import { isRecord } from '../convert/shared/is-record.js';
import { readProgress, type TaskObservation, type TaskStatus } from './task-status.js';

/**
 * Pure: one task record of a Suno-API proxy's `/suno/fetch` (protocols.md §2): the upper-case statuses of
 * new-api's task set, and the legacy lower-case ones (`queueing`, `processing`, `complete`, `failed`…); a
 * record with a `fail_reason` is a failure.
 * Undefined for a record of another shape or an unknown status.
 */
export function readSunoTask(record: unknown): TaskObservation | undefined {
  if (!isRecord(record)) return undefined;
  // As new-api reads it: a non-empty fail_reason is a failure, whatever the status says.
  const failed = typeof record.fail_reason === 'string' && record.fail_reason.trim() !== '';
  const status = failed ? 'failure' : sunoStatus(record.status);
  if (status === undefined) return undefined;
  const observation: TaskObservation = { status };
  const progress = readProgress(record.progress);
  if (progress !== undefined) observation.progress = progress;
  if (status === 'success') observation.progress = 100;
  if (status === 'failure') observation.failReason = typeof record.fail_reason === 'string' && record.fail_reason !== '' ? record.fail_reason : 'The Suno task failed upstream.';
  return observation;
}

function sunoStatus(value: unknown): TaskStatus | undefined {
  switch (typeof value === 'string' ? value.toUpperCase() : undefined) {
    case 'NOT_START':
    case 'SUBMITTED':
    case 'QUEUED':
    case 'QUEUEING':
      return 'queued';
    case 'IN_PROGRESS':
    case 'PROCESSING':
    case 'STREAMING':
      return 'in_progress';
    case 'SUCCESS':
    case 'COMPLETE':
      return 'success';
    case 'FAILURE':
    case 'FAIL':
    case 'FAILED':
    case 'ERROR':
      return 'failure';
    default:
      return undefined;
  }
}

/** The record of `upstreamId` in a `/suno/fetch` answer (`{code: "success", data: [records]}`), if there. */
export function findSunoRecord(json: unknown, upstreamId: string): Record<string, unknown> | undefined {
  if (!isRecord(json) || json.code !== 'success' || !Array.isArray(json.data)) return undefined;
  return json.data.find((record): record is Record<string, unknown> => isRecord(record) && record.task_id === upstreamId);
}
