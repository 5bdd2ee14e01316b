import { isRecord } from '../convert/shared/is-record.js';
import { readProgress, type TaskObservation, type TaskStatus } from './task-status.js';

/**
 * Pure: one task object of a Midjourney-proxy's `list-by-condition` (protocols.md §1.5, §1.6): NOT_START,
 * SUBMITTED and MODAL (the proxy waits for the client's modal) are submitted, IN_PROGRESS in progress,
 * SUCCESS success, FAILURE and CANCEL failures. Undefined for another shape or an unknown status.
 */
export function readMjTask(record: unknown): TaskObservation | undefined {
  if (!isRecord(record)) return undefined;
  const status = mjTaskStatus(record.status);
  if (status === undefined) return undefined;
  const observation: TaskObservation = { status };
  const progress = readProgress(record.progress);
  if (progress !== undefined) observation.progress = progress;
  if (status === 'success') observation.progress = 100;
  if (status === 'failure') {
    const reason = typeof record.failReason === 'string' && record.failReason.trim() !== '' ? record.failReason : undefined;
    observation.failReason = reason ?? (record.status === 'CANCEL' ? 'The Midjourney task was cancelled.' : 'The Midjourney task failed upstream.');
  }
  return observation;
}

/** The record with this id in a `list-by-condition` answer (a bare array); undefined when absent. */
export function findMjRecord(answer: unknown, upstreamId: string): Record<string, unknown> | undefined {
  if (!Array.isArray(answer)) return undefined;
  return answer.find((record): record is Record<string, unknown> => isRecord(record) && record.id === upstreamId);
}

function mjTaskStatus(value: unknown): TaskStatus | undefined {
  switch (value) {
    case 'NOT_START':
    case 'SUBMITTED':
    case 'MODAL':
      return 'submitted';
    case 'IN_PROGRESS':
      return 'in_progress';
    case 'SUCCESS':
      return 'success';
    case 'FAILURE':
    case 'CANCEL':
      return 'failure';
    default:
      return undefined;
  }
}
