/**
 * How a write that failed is tried again: after `firstDelayMs`, doubling up to `maxDelayMs`, `tries` in all
 * (`Infinity`: for as long as the process lives).
 */
export interface RetrySchedule {
  firstDelayMs: number;
  maxDelayMs: number;
  tries: number;
}

/** One write handed to RetriedWrites. */
export interface RetriedWrite {
  /**
   * Resolves when the write went through (or needs no more tries); rejects to be tried again. `'again'`:
   * nothing failed, but the write asks to be made once more on the schedule (a settle that found nothing
   * open yet); after the schedule's last try, or after `close`, the write is done with instead.
   */
  write(): Promise<void | 'again'>;
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
 * conversation's answer (relay/conversations/conversation-owners.ts), an accepted task's submitted state
 * (relay/task-submit/pending-submits.ts) and a settle the database could not take (billing/settle-retry-queue.ts).
 */
export class RetriedWrites {
  /** Writes that failed, waiting for their next try. */
  private readonly pending = new Set<PendingWrite>();
  /** Tries under way (each settles, never rejects). */
  private readonly writing = new Set<Promise<void>>();
  private isClosed = false;

  constructor(private readonly schedule: RetrySchedule) {}

  /** Whether `close` was called: a try from then on is the write's last. */
  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * Tries `write` now, and again on the schedule while it fails; `afterFailure`: its caller has just seen it
   * fail, so the first try waits the schedule's first delay (after `close`: it is tried at once, and once).
   */
  start(write: RetriedWrite, afterFailure = false): void {
    const pending: PendingWrite = { write, tries: 0, delayMs: this.schedule.firstDelayMs, timer: undefined };
    if (afterFailure && !this.isClosed) this.wait(pending);
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
    const last = () => this.isClosed || pending.tries >= this.schedule.tries;
    const written = pending.write.write().then(
      (outcome) => {
        if (outcome === 'again' && !last()) this.wait(pending);
        else this.pending.delete(pending);
      },
      (error: unknown) => {
        pending.write.onError(error);
        if (last()) {
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

  /**
   * Shutdown: each write still waiting gets one more try at once (a failure then is given up), and those
   * tries (and any under way) are waited for, at most `waitMs`.
   */
  async close(waitMs = Infinity): Promise<void> {
    this.isClosed = true;
    for (const pending of this.pending) {
      if (pending.timer === undefined) continue;
      clearTimeout(pending.timer);
      pending.timer = undefined;
      this.tryOnce(pending);
    }
    await within(Promise.all(this.writing), waitMs);
  }
}

/** Resolves when `promise` settles or `ms` milliseconds have passed, whichever is first. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  if (ms === Infinity) return void (await promise);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
