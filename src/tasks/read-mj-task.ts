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

/**
 * The record with this id in a `list-by-condition` answer (a bare array); undefined when absent. A proxy
 * lists a task once, but one that lists it twice (a retried or re-synced task kept beside its old record)
 * must not hide a finished task behind a stale record: that task would look unfinished until it timed out
 * and was refunded, though its image was made. So the furthest state wins — success, then failure, then
 * in progress, then submitted (a task that succeeded cannot have failed after) — then the later
 * `finishTime`, `startTime`, `submitTime` (milliseconds, protocols.md §1.5), then the first listed. A record
 * whose status is not one of the proxy's is passed over while another is readable.
 */
export function findMjRecord(answer: unknown, upstreamId: string): Record<string, unknown> | undefined {
  if (!Array.isArray(answer)) return undefined;
  let chosen: Record<string, unknown> | undefined;
  for (const record of answer) {
    if (!isRecord(record) || record.id !== upstreamId) continue;
    if (chosen === undefined || isFurther(record, chosen)) chosen = record;
  }
  return chosen;
}

/** How far each state is along a task's life; a record of an unknown status is the least. */
const stateRank: Record<TaskStatus, number> = { not_start: 1, submitted: 1, queued: 1, in_progress: 2, failure: 3, success: 4 };

/** Whether `record` shows the task further along (or later) than `chosen`; a tie keeps `chosen`. */
function isFurther(record: Record<string, unknown>, chosen: Record<string, unknown>): boolean {
  const rank = (candidate: Record<string, unknown>) => {
    const status = mjTaskStatus(candidate.status);
    return status === undefined ? 0 : stateRank[status];
  };
  const byRank = rank(record) - rank(chosen);
  if (byRank !== 0) return byRank > 0;
  for (const field of ['finishTime', 'startTime', 'submitTime']) {
    const later = millisecondsOf(record[field]) - millisecondsOf(chosen[field]);
    if (later !== 0) return later > 0;
  }
  return false;
}

/** A time field as a number of milliseconds (some proxies write it as a string); 0 when absent or unreadable. */
function millisecondsOf(value: unknown): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : 0;
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
