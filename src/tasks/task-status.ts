/**
 * A task's state, as stored (protocols.md §0, new-api's TaskStatus in lower case). `not_start`: the row
 * exists, the upstream has not accepted it yet (the submit is in flight, or a crash cut it). `success` and
 * `failure` are final; a failed task is refunded once.
 */
export type TaskStatus = 'not_start' | 'submitted' | 'queued' | 'in_progress' | 'success' | 'failure';

export const unfinishedStatuses: readonly TaskStatus[] = ['submitted', 'queued', 'in_progress'];

export function isFinished(status: TaskStatus): boolean {
  return status === 'success' || status === 'failure';
}

/** What an upstream said about a task, read from its answer: the state, and what goes with it. */
export interface TaskObservation {
  status: TaskStatus;
  /** 0–100; undefined when the upstream did not say. */
  progress?: number;
  failReason?: string;
}

/**
 * OpenAI's video `status` (protocols.md §4, as new-api maps it): queued / pending → queued, in_progress /
 * processing → in_progress, completed → success, failed / cancelled → failure. Anything else is not a state
 * we know: undefined, and the task is asked again later.
 */
export function taskStatusFromOpenaiVideo(status: unknown): TaskStatus | undefined {
  switch (status) {
    case 'queued':
    case 'pending':
      return 'queued';
    case 'in_progress':
    case 'processing':
      return 'in_progress';
    case 'completed':
    case 'succeeded':
      return 'success';
    case 'failed':
    case 'cancelled':
      return 'failure';
    default:
      return undefined;
  }
}

/** The OpenAI video object's `status` for a stored state (new-api's ToVideoStatus). */
export function openaiVideoStatus(status: TaskStatus): 'queued' | 'in_progress' | 'completed' | 'failed' {
  switch (status) {
    case 'success':
      return 'completed';
    case 'failure':
      return 'failed';
    case 'in_progress':
      return 'in_progress';
    default:
      return 'queued';
  }
}

/** new-api's TaskDto `status` (upper case), for the unified `/v1/video/generations/{id}` query. */
export function taskDtoStatus(status: TaskStatus): string {
  return status.toUpperCase();
}

/**
 * The transition a stored task takes on an observation: none when nothing changes or when it would go
 * backwards (a queued answer after in_progress: upstreams' caches lag), else the new state. A final state
 * never changes again; `not_start` is left by the submit alone.
 */
export function nextTaskStatus(current: TaskStatus, observed: TaskStatus): TaskStatus | undefined {
  if (isFinished(current) || current === 'not_start' || observed === 'not_start') return undefined;
  if (isFinished(observed)) return observed;
  const order: Record<TaskStatus, number> = { not_start: 0, submitted: 1, queued: 2, in_progress: 3, success: 4, failure: 4 };
  return order[observed] > order[current] ? observed : undefined;
}

/** A progress figure as 0–100, from a number or a text such as "45%"; undefined when there is none. */
export function readProgress(value: unknown): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number.parseFloat(value) : Number.NaN;
  if (!Number.isFinite(number)) return undefined;
  return Math.min(100, Math.max(0, Math.round(number)));
}
