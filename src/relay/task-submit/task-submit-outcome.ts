import type { UpstreamSignal } from '../../providers/upstream-client.js';
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

/**
 * What one submit's upstream call is given: the client's abort signal, and `answerArrived`, called once
 * the upstream's 2xx arrived, before its body is read. From then on a client that leaves no longer ends
 * the call at once: the answer is read on (within USAGE_WAIT_SECONDS, as a text answer's is) and the task
 * it names is recorded and charged as if the client had stayed, since the upstream took the job.
 */
export interface SubmitCall {
  signal: UpstreamSignal;
  answerArrived(): void;
}
