import type { TaskStatus } from '../../tasks/task-status.js';
import type { AttemptOutcome } from '../run-failover.js';

/** An upstream took a task: what the row records of it. */
export interface AcceptedTask {
  kind: 'accepted';
  upstreamId: string;
  status: TaskStatus;
  progress: number;
  /** The upstream failed it in its answer (it costs nothing). */
  failReason?: string;
  /** The upstream's answer, as kept on the row. */
  result: string;
  /** The status the client is answered with. */
  httpStatus: number;
}

export type TaskSubmitOutcome = AcceptedTask | Extract<AttemptOutcome<{ status: number }>, { kind: 'failed' }>;
