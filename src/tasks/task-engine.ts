import type { Catalog } from '../catalog/catalog.js';
import type { UpstreamClient } from '../providers/upstream-client.js';
import type { TaskRow, TasksRepository } from '../storage/tasks-repository.js';
import { buildRefundLogRow } from './build-refund-log-row.js';
import { fetchTaskState } from './fetch-task-state.js';
import { nextTaskStatus, type TaskObservation, type TaskStatus } from './task-status.js';

export interface TaskEngineOptions {
  repository: TasksRepository;
  catalog: Catalog;
  upstream: UpstreamClient;
  now(): number;
  /** Between poll passes, and between two polls of one task (TASK_POLL_INTERVAL); 0: this instance does not poll. */
  intervalMs: number;
  /** A task not finished this long after its submit is failed and refunded (TASK_TIMEOUT_MINUTES). */
  timeoutMs: number;
  onError(error: unknown): void;
  /**
   * Whether a `not_start` task is an accepted submit whose state this node is still writing
   * (src/relay/task-submit/pending-submits.ts): not an orphan, left alone.
   */
  heldSubmit?(taskId: number): boolean;
}

/** Tasks taken per pass; the rest wait for the next one. */
const passLimit = 200;
/** A claimed task is this instance's for this long: well above one upstream call. */
const leaseMs = 120_000;
/** A task that never left `not_start` this long after creation lost its submit. */
export const orphanAfterMs = 15 * 60_000;

export interface PassSummary {
  polled: number;
  finished: number;
  refunded: number;
}

/**
 * The poll loop of asynchronous tasks (DESIGN.md "tasks", docs/behaviour.md "Video"). Every pass claims the
 * due tasks with a lease (any number of instances may run it: each task is polled by one), asks each one's
 * upstream how it stands, and records what changed. A task that fails — upstream, by timeout, or as an
 * orphan of a crashed submit — is refunded its charge exactly once (TasksRepository.refundFailed), with a
 * log row saying so. Nothing here is on a request's path.
 */
export class TaskEngine {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly options: TaskEngineOptions) {}

  start(): void {
    if (this.options.intervalMs <= 0) return;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.pollOnce()
        .catch((error: unknown) => this.options.onError(error))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.options.intervalMs).unref();
        });
    };
    this.timer = setTimeout(tick, this.options.intervalMs).unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: the due tasks, one after another (a pass is background work; it need not be quick). */
  async pollOnce(): Promise<PassSummary> {
    const now = this.options.now();
    const tasks = await this.options.repository.claimDue({ now, limit: passLimit, leaseMs, orphanAfterMs });
    const summary: PassSummary = { polled: 0, finished: 0, refunded: 0 };
    for (const task of tasks) {
      try {
        await this.advance(task, summary);
      } catch (error) {
        this.options.onError(error);
      }
    }
    return summary;
  }

  private async advance(task: TaskRow, summary: PassSummary): Promise<void> {
    const { repository } = this.options;
    const now = this.options.now();
    const status = task.status as TaskStatus;
    if (status === 'failure') {
      await this.refund(task, summary);
      return;
    }
    // A final task is never advanced again (the claim checks it too; this keeps a delivered video from ever
    // being failed and refunded).
    if (status === 'success') return;
    if (status === 'not_start') {
      if (this.options.heldSubmit?.(task.id) === true) {
        await repository.postpone(task.id, task.next_poll_at, now);
        return;
      }
      await this.finish(task, status, { status: 'failure', failReason: 'The submit did not complete (the gateway stopped while it ran).' }, summary);
      return;
    }
    summary.polled += 1;
    const seen = await fetchTaskState(this.options.upstream, this.options.catalog.snapshot.channels, task, now);
    if (seen === 'unknown') {
      await this.finish(task, status, { status: 'failure', failReason: 'The upstream no longer knows this task.' }, summary);
      return;
    }
    const next = seen === undefined ? undefined : nextTaskStatus(status, seen.observation.status);
    if (seen !== undefined && (next === 'success' || next === 'failure')) {
      await this.finish(task, status, { ...seen.observation, status: next }, summary, seen.result);
      return;
    }
    // Timed out only when the upstream, asked first, still has it unfinished (a late pass must not fail a
    // video the upstream finished while nobody polled).
    if (now - task.created_at > this.options.timeoutMs) {
      await this.finish(task, status, { status: 'failure', failReason: `The task did not finish within ${Math.round(this.options.timeoutMs / 60_000)} minutes.` }, summary);
      return;
    }
    if (seen === undefined) {
      await repository.postpone(task.id, now + this.options.intervalMs, now);
      return;
    }
    await repository.applyChange(
      task.id,
      status,
      { status: next ?? status, progress: Math.max(task.progress, seen.observation.progress ?? task.progress), result: seen.result, nextPollAt: now + this.options.intervalMs },
      now,
    );
  }

  /** Enters a final state (once: the CAS on `from`), then refunds a failure. */
  private async finish(task: TaskRow, from: TaskStatus, observation: TaskObservation, summary: PassSummary, result?: string): Promise<void> {
    const now = this.options.now();
    const change = {
      status: observation.status,
      progress: observation.status === 'success' ? 100 : task.progress,
      completedAt: now,
      nextPollAt: now + this.options.intervalMs,
      ...(result === undefined ? {} : { result }),
      ...(observation.failReason === undefined ? {} : { failReason: observation.failReason }),
    };
    if (!(await this.options.repository.applyChange(task.id, from, change, now))) return;
    summary.finished += 1;
    if (observation.status === 'failure') await this.refund({ ...task, status: 'failure', fail_reason: observation.failReason ?? null }, summary);
  }

  private async refund(task: TaskRow, summary: PassSummary): Promise<void> {
    const { repository } = this.options;
    const now = this.options.now();
    const { snapshot } = this.options.catalog;
    // The row commits with the refund: a crash right after cannot lose it (TasksRepository.refundFailed).
    const refunded = await repository.refundFailed(task.id, now, (refund) => buildRefundLogRow(refund.task, refund.quota, snapshot.tokensById.get(refund.task.token_id)?.name, now));
    if (refunded === 'pending') {
      await repository.postpone(task.id, now + this.options.intervalMs, now);
      return;
    }
    if (refunded === undefined) return;
    summary.refunded += 1;
  }
}
