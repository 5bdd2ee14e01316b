/**
 * The relay requests still running in this process. A response can reach the client before its
 * settlement and log row are written (they run in the pipeline's `finally`), so a clean shutdown waits
 * for these before it flushes the log writer and closes the database: otherwise closing right after
 * answering loses the row and leaves the reservation open.
 *
 * A count and one reaction per request: every relay request passes through here, and a Set of settled
 * promises (two more promises and a Set insert and delete each) was measurable garbage.
 */
export class InFlightRequests {
  private running = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.running;
  }

  /** Runs `work` and keeps it counted until it has finished, whether it resolves or throws. */
  track<T>(work: () => Promise<T>): Promise<T> {
    const promise = work();
    this.running += 1;
    promise.then(this.finished, this.finished);
    return promise;
  }

  /** Resolves once every request tracked so far, and any tracked while waiting, has finished. */
  drained(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private readonly finished = (): void => {
    this.running -= 1;
    if (this.running > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  };
}
