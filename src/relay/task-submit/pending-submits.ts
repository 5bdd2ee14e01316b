import { setTimeout as wait } from 'node:timers/promises';
import type { SubmittedTask, TasksRepository } from '../../storage/tasks-repository.js';
import { RetriedWrites, type RetrySchedule } from '../../storage/retried-writes.js';
import { formatRestoreSubmitted } from './format-restore-submitted.js';

/** The waits before each retry of an accepted submit's write within its request: four tries within about a second. */
export const submitRecordDelaysMs: readonly number[] = [50, 200, 800];

/**
 * How a submitted state the request could not write is tried again in the background: after half a second,
 * doubling up to 30 s, 12 tries (about three and a half minutes) — well within the orphan sweep's 15 minutes
 * (task-engine.ts orphanAfterMs), and once more at shutdown.
 */
export const submitRetry: RetrySchedule = { firstDelayMs: 500, maxDelayMs: 30_000, tries: 12 };

type SubmitStore = Pick<TasksRepository, 'markSubmitted' | 'findById' | 'recordCharge'>;

/** An accepted task whose row is still `not_start`: who it is for, for the operator's line. */
export interface HeldTask {
  id: number;
  publicId: string;
  userId: number;
}

/**
 * One write of an accepted submit: true when the row holds it — written now, or by an earlier try that went
 * through unheard (its answer lost with the connection); false when the row left `not_start` without it
 * (failed as an orphan by a sweep, on any node).
 */
async function writeSubmitted(tasks: SubmitStore, id: number, submitted: SubmittedTask, now: number): Promise<boolean> {
  if (await tasks.markSubmitted(id, submitted, now)) return true;
  const row = await tasks.findById(id);
  return row?.upstream_id === submitted.upstreamId && row.channel_id === submitted.channelId;
}

/**
 * Writes an accepted submit's state within its request, tried again after each of `delaysMs` while the
 * database refuses (a restart, a failover, a lock timeout). 'unreachable': every try failed (then
 * PendingSubmits takes it over).
 */
export async function recordSubmitted(tasks: SubmitStore, id: number, submitted: SubmittedTask, now: number, delaysMs: readonly number[] = submitRecordDelaysMs): Promise<'recorded' | 'gone' | 'unreachable'> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return (await writeSubmitted(tasks, id, submitted, now)) ? 'recorded' : 'gone';
    } catch (error) {
      const delay = delaysMs[attempt];
      if (delay === undefined) return 'unreachable';
      await wait(delay);
    }
  }
}

/**
 * Accepted submits whose state the database would not take within their request: the upstream has the
 * task (and bills the operator), the client was answered its id and charged, and the row is still
 * `not_start`. Each is kept here and written in the background (submitRetry), once more at shutdown;
 * meanwhile this node's orphan sweep leaves its row alone (`isHeld`). Reported to the operator (with the
 * statement that restores the row) when no try lands, and when the row left `not_start` first — failed
 * and refunded as an orphan by another node's sweep: the task then runs upstream uncharged, and the
 * write is not forced over the refund (that would take the charge back a second time or run a task
 * the user was refunded for, unseen).
 */
export class PendingSubmits {
  private readonly held = new Set<number>();
  private readonly writes: RetriedWrites;

  constructor(
    private readonly tasks: SubmitStore,
    private readonly options: { report(line: string): void; now(): number; schedule?: RetrySchedule },
  ) {
    this.writes = new RetriedWrites(options.schedule ?? submitRetry);
  }

  /** Whether this task's submitted state is waiting here to be written (its row is `not_start` meanwhile). */
  isHeld(taskId: number): boolean {
    return this.held.has(taskId);
  }

  /** Takes over the write of `submitted` onto task `task.id`, whose request's tries all failed just now. */
  hold(task: HeldTask, submitted: SubmittedTask): void {
    this.held.add(task.id);
    let lastError: unknown;
    const named = `task ${task.publicId} (row ${task.id}) of user ${task.userId} was accepted by channel ${submitted.channelId} (upstream id ${JSON.stringify(submitted.upstreamId)})`;
    this.writes.start(
      {
        write: async () => {
          const written = await writeSubmitted(this.tasks, task.id, submitted, this.options.now());
          this.held.delete(task.id);
          if (!written) {
            this.options.report(
              `${named} and charged, but its row left not_start before its state could be written (failed and refunded as an orphan): the upstream task runs uncharged and unpolled; nothing more is written`,
            );
          }
        },
        onError: (error) => {
          lastError = error;
        },
        onGiveUp: () => {
          this.held.delete(task.id);
          this.options.report(
            `${named} and charged, but its submitted state could not be written (last: ${String(lastError)}); the orphan sweep fails and refunds it 15 minutes after its creation unless restored first with: ` +
              formatRestoreSubmitted(task.id, submitted),
          );
        },
      },
      true,
    );
  }

  /**
   * Keeps `quota`, the charge task `task.id`'s submit settled at, on its row (TasksRepository.recordCharge)
   * once the request's own write of it failed (`error`): tried again in the background, once more at
   * shutdown, reported when no try lands. The money is right meanwhile and even then: a refund reads a
   * charge the row lacks from the submit's reservation, which the retention sweep keeps for such a task
   * (storage/delete-old-rows.ts); the row's `quota` is what the task list and the audits show.
   */
  keepCharge(task: HeldTask, quota: number, error: unknown): void {
    let lastError = error;
    this.writes.start(
      {
        write: () => this.tasks.recordCharge(task.id, quota),
        onError: (failure) => {
          lastError = failure;
        },
        onGiveUp: () => {
          this.options.report(
            `task ${task.publicId} (row ${task.id}) of user ${task.userId} was charged ${quota}, but the charge could not be kept on its row (last: ${String(lastError)}); the row shows no charge, and a refund reads it, with the wallets it left, from the submit's reservation (kept until the task succeeds or is refunded)`,
          );
        },
      },
      true,
    );
  }

  /** Shutdown, before the database closes: each held write gets one more try, waited for. */
  async close(): Promise<void> {
    await this.writes.close();
  }
}
