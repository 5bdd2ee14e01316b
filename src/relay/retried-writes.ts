/** How a write that failed is tried again: after `firstDelayMs`, doubling up to `maxDelayMs`, `tries` in all. */
export interface RetrySchedule {
  firstDelayMs: number;
  maxDelayMs: number;
  tries: number;
}

/** One write handed to RetriedWrites. */
export interface RetriedWrite {
  /** Resolves when the write went through (or needs no more tries); rejects to be tried again. */
  write(): Promise<void>;
  /** Each failed try (reported; the write may still go through later). */
  onError(error: unknown): void;
  /** The last try failed (the schedule's last, or the one at shutdown): nothing will write it now. */
  onGiveUp?(error: unknown): void;
}

interface PendingWrite {
  write: RetriedWrite;
  /** Tries made so far. */
  tries: number;
  /** The next wait: the schedule's first, doubled after each up to its maximum. */
  delayMs: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Writes off a request's path that must not be lost to a database blip: a write that fails is tried again
 * on its schedule (a timer that does not keep the process alive), and `close()` — at shutdown, before the
 * database closes — gives each waiting write one more try at once and waits for it. Used by a claimed
 * conversation's answer (conversation-owners.ts) and an accepted task's submitted state
 * (task-submit/pending-submits.ts).
 */
export class RetriedWrites {
  /** Writes that failed, waiting for their next try. */
  private readonly pending = new Set<PendingWrite>();
  /** Tries under way (each settles, never rejects). */
  private readonly writing = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly schedule: RetrySchedule) {}

  /**
   * Tries `write` now, and again on the schedule while it fails; `afterFailure`: its caller has just seen it
   * fail, so the first try waits the schedule's first delay.
   */
  start(write: RetriedWrite, afterFailure = false): void {
    const pending: PendingWrite = { write, tries: 0, delayMs: this.schedule.firstDelayMs, timer: undefined };
    if (afterFailure) this.wait(pending);
    else this.tryOnce(pending);
  }

  private wait(pending: PendingWrite): void {
    this.pending.add(pending);
    pending.timer = setTimeout(() => {
      pending.timer = undefined;
      this.tryOnce(pending);
    }, pending.delayMs);
    // A retry alone does not keep the process alive: shutdown tries once more.
    pending.timer.unref();
    pending.delayMs = Math.min(pending.delayMs * 2, this.schedule.maxDelayMs);
  }

  private tryOnce(pending: PendingWrite): void {
    pending.tries += 1;
    const written = pending.write.write().then(
      () => void this.pending.delete(pending),
      (error: unknown) => {
        pending.write.onError(error);
        if (this.closed || pending.tries >= this.schedule.tries) {
          this.pending.delete(pending);
          pending.write.onGiveUp?.(error);
          return;
        }
        this.wait(pending);
      },
    );
    this.writing.add(written);
    void written.finally(() => this.writing.delete(written));
  }

  /** Shutdown: each write still waiting gets one more try at once, waited for (a failure then is given up). */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.pending) {
      if (pending.timer === undefined) continue;
      clearTimeout(pending.timer);
      pending.timer = undefined;
      this.tryOnce(pending);
    }
    await Promise.all(this.writing);
  }
}
