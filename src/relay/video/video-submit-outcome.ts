import type { TaskStatus } from '../../tasks/task-status.js';
import type { AttemptOutcome } from '../run-failover.js';

/** An upstream took a video task: what the row records of it. */
export interface AcceptedVideoTask {
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

export type VideoSubmitOutcome = AcceptedVideoTask | Extract<AttemptOutcome<{ status: number }>, { kind: 'failed' }>;
