/**
 * The relay requests still running in this process. A response can reach the client before its
 * settlement and log row are written (they run in the pipeline's `finally`), so a clean shutdown waits
 * for these before it flushes the log writer and closes the database: otherwise closing right after
 * answering loses the row and leaves the reservation open.
 */
export class InFlightRequests {
  private readonly running = new Set<Promise<unknown>>();

  get size(): number {
    return this.running.size;
  }

  /** Runs `work` and keeps it counted until it has finished, whether it resolves or throws. */
  track<T>(work: () => Promise<T>): Promise<T> {
    const promise = work();
    const settled = promise.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
    return promise;
  }

  /** Resolves once every request tracked so far, and any tracked while waiting, has finished. */
  async drained(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
