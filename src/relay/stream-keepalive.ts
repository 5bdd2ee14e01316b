/** A stream the keep-alive watches: how many writes it has made so far, and how to ping it. */
export interface KeepAliveTarget {
  /** Grows with every write to the client. */
  readonly writes: number;
  /** Sends a ping (an SSE comment), whatever is held back. */
  ping(): void;
}

/**
 * Pings the client streams that have been silent for a period, so a proxy in front of the gateway (nginx
 * and AWS load balancers time out idle connections at 60 s, Cloudflare at 100 s) does not cut a stream
 * whose upstream is thinking. One timer for all streams (made when the first is watched, then kept: making
 * and clearing one per stream would cost every stream at one connection more than the ticks ever do): at
 * each tick a stream whose write count has not moved since the previous tick has been silent for one to
 * two periods, and gets a ping. Nothing per chunk beyond a counter.
 */
export class StreamKeepAlive {
  private readonly watched = new Map<KeepAliveTarget, number>();
  private timer: NodeJS.Timeout | undefined;

  /** `periodMs` 0 turns the pings off. */
  constructor(private readonly periodMs: number) {}

  /** Starts watching `target`; the returned function stops it (call it when the stream ends). */
  watch(target: KeepAliveTarget): () => void {
    if (this.periodMs <= 0) return noop;
    this.watched.set(target, target.writes);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), this.periodMs);
      this.timer.unref();
    }
    return () => this.unwatch(target);
  }

  get size(): number {
    return this.watched.size;
  }

  /** Stops the timer (the gateway's shutdown). */
  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private unwatch(target: KeepAliveTarget): void {
    this.watched.delete(target);
  }

  private tick(): void {
    for (const [target, writesAtLastTick] of this.watched) {
      if (target.writes === writesAtLastTick) target.ping();
      this.watched.set(target, target.writes);
    }
  }
}

const noop = (): void => undefined;
