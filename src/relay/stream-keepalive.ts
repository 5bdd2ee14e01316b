/** A stream the keep-alive watches: how many writes it has made so far, and how to ping it. */
export interface KeepAliveTarget {
  /** Grows with every write to the client. */
  readonly writes: number;
  /** Sends a ping (an SSE comment), whatever is held back. */
  ping(): void;
  /** The keep-alive's own bookkeeping: where the target is in its list (-1: not watched) and its writes at the last tick. */
  keepAliveIndex: number;
  writesAtTick: number;
}

/**
 * Pings the client streams that have been silent for a period, so a proxy in front of the gateway (nginx
 * and AWS load balancers time out idle connections at 60 s, Cloudflare at 100 s) does not cut a stream
 * whose upstream is thinking. One timer for all streams (made when the first is watched, then kept: making
 * and clearing one per stream would cost every stream at one connection more than the ticks ever do): at
 * each tick a stream whose write count has not moved since the previous tick has been silent for one to
 * two periods, and gets a ping. Per stream: an array slot (swap-removed), no hashing, no closure.
 */
export class StreamKeepAlive {
  private readonly watched: KeepAliveTarget[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** `periodMs` 0 turns the pings off. */
  constructor(private readonly periodMs: number) {}

  get enabled(): boolean {
    return this.periodMs > 0;
  }

  /** Starts watching `target` until {@link unwatch} (call it when the stream ends). */
  watch(target: KeepAliveTarget): void {
    if (this.periodMs <= 0 || target.keepAliveIndex >= 0) return;
    target.writesAtTick = target.writes;
    target.keepAliveIndex = this.watched.length;
    this.watched.push(target);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), this.periodMs);
      this.timer.unref();
    }
  }

  unwatch(target: KeepAliveTarget): void {
    const index = target.keepAliveIndex;
    if (index < 0) return;
    const last = this.watched.pop() as KeepAliveTarget;
    if (last !== target) {
      this.watched[index] = last;
      last.keepAliveIndex = index;
    }
    target.keepAliveIndex = -1;
  }

  get size(): number {
    return this.watched.length;
  }

  /** Stops the timer (the gateway's shutdown). */
  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    for (const target of this.watched) {
      if (target.writes === target.writesAtTick) target.ping();
      target.writesAtTick = target.writes;
    }
  }
}
